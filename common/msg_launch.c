// SPDX-License-Identifier: ISC
/*
 * The launcher's table: the messages of common/msg_launch.h and no
 * others, for airlock-launcher and airlock-guard.  A frame of any other
 * type is "unknown" to them, and closes the link.
 */
#include <stddef.h>

#include "common/msg_launch.h"

static const struct msg_type_info msg_types[] = {
	MSG_CATALOGUE_LAUNCH(MSG_INFO)
};

const struct msg_type_info *
msg_type_lookup(uint16_t type)
{
	size_t	i;

	for (i = 0; i < sizeof(msg_types) / sizeof(msg_types[0]); i++)
		if (msg_types[i].type == type)
			return &msg_types[i];
	return NULL;
}

const char *
msg_type_name(uint16_t type)
{
	const struct msg_type_info *t = msg_type_lookup(type);

	return t != NULL ? t->name : "UNKNOWN";
}
