/*
 * die.h - the one fatal path of the MPI job, for what is truly fatal (out
 * of memory, a rank of another wire version, a topology hwloc cannot
 * load): everything else is an error value recorded per rank.
 */
#ifndef ST_DIE_H
#define ST_DIE_H

/* Prints rank, host, file:line and the message, flushes, and aborts the
 * MPI job (or exits with status 3 when MPI is not running). Never returns. */
_Noreturn void st_die_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define st_die(...) st_die_at(__FILE__, __LINE__, __VA_ARGS__)

/* What arrived from rank r (`what`: "a rank result") is of another wire
 * version than this rank's: a mixed install the stamp did not catch. */
#define st_wire_expect(r, what, got, want)                                                  \
	do {                                                                                 \
		if ((got) != (want))                                                         \
			st_die("rank %d sent %s of wire version %u (this rank's is %u)", (r), \
			       (what), (unsigned)(got), (unsigned)(want));                   \
	} while (0)

#endif
