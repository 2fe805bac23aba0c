// SPDX-License-Identifier: ISC
/* Filesystems by their statfs f_type (see fstype.h). */
#include "common/fstype.h"

int
fstype_ctime_trusted(long f_type)
{
	switch ((unsigned long)f_type & 0xffffffffUL) {
	case 0x58465342UL:	/* xfs */
	case 0x9123683eUL:	/* btrfs */
	case 0xca451a4eUL:	/* bcachefs */
		return 1;
	default:
		return 0;
	}
}
