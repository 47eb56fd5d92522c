/*
 * dl.h - an optional library loaded at run time: dlopen of its soname and
 * dlsym of the calls a part makes into a table of function pointers typed
 * by the library's header (which is needed only to build). The binary then
 * starts on a host without the library (no NEEDED entry), and the part that
 * wants it says which library is missing and why, as a value (issue 19:
 * liburing and libaio in worker/posix_aio.c, libnfs in worker/lnfs_lib.c).
 */
#ifndef ST_DL_H
#define ST_DL_H

#include <stddef.h>

/* One call of a library: its name and where its pointer goes in the table. */
struct st_dl_sym {
	const char *name;
	size_t off;   /* offsetof in the table */
	int optional; /* absent in older versions: NULL then */
};

/* dlsym gives a data pointer; POSIX makes it convertible to a function's */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym results fit function pointers");

/* Load soname and fill table from syms: 0, or -errno with why naming the
 * library and what is wrong ("liburing.so.2 not found", or the loader's
 * reason, or the call it lacks). *dl is the handle to dlclose; each load
 * holds a reference of its own (dlopen counts them), and a loaded library
 * stays mapped until the process ends. */
int st_dl_load(const char *soname, const struct st_dl_sym *syms, size_t nsyms, void *table,
	       void **dl, char *why, size_t n);

#endif
