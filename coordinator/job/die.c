/*
 * die.c - the fatal path (see die.h): the only way out of the MPI job
 * that does not go through the collective exit.
 */
#include "die.h"

#include "../../common/util.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

_Noreturn void st_die_at(const char *file, int line, const char *fmt, ...)
{
	char host[256] = "?";
	int rank = -1, inited = 0, finalized = 0;
	gethostname(host, sizeof(host) - 1);
	MPI_Initialized(&inited);
	MPI_Finalized(&finalized);
	if (inited && !finalized)
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "stcluster: fatal on rank %d (%s) at %s:%d: ", rank, host, file,
		line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(NULL);
	if (inited && !finalized)
		MPI_Abort(MPI_COMM_WORLD, ST_EXIT_ABORTED);
	exit(ST_EXIT_ABORTED);
}
