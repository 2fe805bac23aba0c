/* SPDX-License-Identifier: ISC */
/*
 * What airlock needs to know of a filesystem by its statfs f_type.
 */
#ifndef AIRLOCK_FSTYPE_H
#define AIRLOCK_FSTYPE_H

/*
 * 1 for the local filesystems that clone (XFS, btrfs, bcachefs): there
 * this kernel stamps every ctime, so a spare copy may be brought up to
 * date by them (a network filesystem's come from other clocks, a FUSE
 * server's from anyone).
 */
int	fstype_ctime_trusted(long f_type);

#endif
