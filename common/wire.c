/*
 * wire.c - names of the enums that cross MPI.
 */
#include "wire.h"

const char *const st_op_names[ST_OP_COUNT] = {
	[ST_OP_NONE] = "none",	     [ST_OP_PREPARE] = "prepare", [ST_OP_MKDIR] = "mkdir",
	[ST_OP_OPEN] = "open",	     [ST_OP_WRITE] = "write",	  [ST_OP_READ] = "read",
	[ST_OP_FSYNC] = "fsync",     [ST_OP_CLOSE] = "close",	  [ST_OP_UNLINK] = "unlink",
	[ST_OP_ALLOC] = "alloc",     [ST_OP_PIN] = "pin",	  [ST_OP_DEADLINE] = "deadline",
	[ST_OP_SHORT] = "short",
};

const char *const st_role_names[] = { "client", "server", "idle" };
