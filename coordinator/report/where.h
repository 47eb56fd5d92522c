/*
 * where.h - the one translation history --where needs: values of the sweep
 * options as the user writes them on the command line, into what the
 * store's columns hold. A pure function of the text.
 */
#ifndef ST_WHERE_H
#define ST_WHERE_H

#include <stddef.h>

/*
 * Rewrite the `name OP VALUE` and `name IN (...)` terms of a --where
 * expression whose name is a sweep option: size literals become bytes
 * (rsize=1m -> rsize=1048576, also quoted '1m'), a bare enum value becomes
 * a string (sync=async -> sync='async'). Quoted strings are copied as they
 * are; everything else passes through. 0, or -1 with err when out is too
 * small.
 */
int st_where_translate(const char *in, char *out, size_t n, char *err, size_t errn);

#endif
