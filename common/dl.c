/*
 * dl.c - an optional library loaded at run time (see dl.h).
 */
#include "dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int st_dl_load(const char *soname, const struct st_dl_sym *syms, size_t nsyms, void *table,
	       void **dl, char *why, size_t n)
{
	/* never unmapped (NODELETE): the library may have left an atexit
	 * handler or a thread behind, and a leak report must still be able to
	 * name its frames (tests/lsan.supp matches libnfs's by name) */
	*dl = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!*dl) {
		/* the loader's text is "NAME: cannot open shared object file:
		 * REASON" or "PATH: REASON": keep the reason, short */
		static const char cannot[] = ": cannot open shared object file: ";
		const char *e = dlerror();
		const char *cut = e ? strstr(e, cannot) : NULL;
		const char *path_end = e ? strstr(e, ": ") : NULL;
		const char *reason = cut ? cut + sizeof(cannot) - 1 : path_end ? path_end + 2 : e;
		char en[64];
		if (!reason || strcmp(reason, strerror_r(ENOENT, en, sizeof(en))) == 0)
			snprintf(why, n, "%s not found", soname);
		else
			snprintf(why, n, "%s: %s", soname, reason);
		return -ENOENT;
	}
	for (size_t i = 0; i < nsyms; i++) {
		void *p = dlsym(*dl, syms[i].name);
		if (!p && !syms[i].optional) {
			snprintf(why, n, "%s lacks %s", soname, syms[i].name);
			dlclose(*dl);
			*dl = NULL;
			return -ENOSYS;
		}
		memcpy((char *)table + syms[i].off, &p, sizeof(p));
	}
	return 0;
}
