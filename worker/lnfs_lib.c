/*
 * lnfs_lib.c - libnfs loaded at run time for the libnfs engine (see lnfs.h
 * and common/dl.h): the binary has no NEEDED entry for it, so a cluster
 * node without the package starts stcluster and runs the posix and null
 * engines; --engine libnfs there is refused with what to install.
 */
#include "lnfs.h"

#include "../common/dl.h"
#include "../common/util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* the soname of the libnfs whose headers this was built with (Makefile) */
#ifndef LNFS_SONAME
#define LNFS_SONAME "libnfs.so.13"
#endif

#define LNFS_CALL_SYM(f) { #f, offsetof(struct lnfs_lib, f), 0 },
static const struct st_dl_sym lnfs_syms[] = { LNFS_CALLS(LNFS_CALL_SYM) };
#undef LNFS_CALL_SYM

int lnfs_lib_load(struct lnfs_lib *l, char *why, size_t n)
{
	memset(l, 0, sizeof(*l));
	char e[160];
	int rc = st_dl_load(LNFS_SONAME, lnfs_syms, ST_ARRAY_LEN(lnfs_syms), l, &l->dl, e,
			    sizeof(e));
	if (rc) {
		/* Debian names the package by the soname: libnfs.so.13 in libnfs13 */
		const char *major = strrchr(LNFS_SONAME, '.');
		snprintf(why, n, "%s (the libnfs engine loads it at run time: install libnfs%s)", e,
			 major ? major + 1 : "");
	}
	return rc;
}

void lnfs_lib_unload(struct lnfs_lib *l)
{
	if (l->dl)
		dlclose(l->dl);
	memset(l, 0, sizeof(*l));
}
