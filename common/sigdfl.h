/* SPDX-License-Identifier: ISC */
#ifndef AIRLOCK_SIGDFL_H
#define AIRLOCK_SIGDFL_H

void	sig_default_caught(void);

#endif
