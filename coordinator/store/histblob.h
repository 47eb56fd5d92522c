/*
 * histblob.h - a latency histogram as the store keeps it (rank_result.hist,
 * issue 14): sparse, the non-empty buckets only, so a rank and phase costs
 * tens of bytes, not the 2,720 of struct st_hist.
 *
 * rank_result.hist_enc says which encoding a row's blob has:
 *   NULL  the struct st_hist bytes as they were in memory (count, sum_ns,
 *         min_ns, max_ns, every bucket: little-endian u64 on the hosts that
 *         wrote them); the rows written before schema version 4
 *   1     (ST_HISTBLOB_SPARSE) unsigned LEB128 varints: count, sum_ns,
 *         min_ns, max_ns, then per non-empty bucket in increasing order the
 *         distance from the previous one's index (the first: index + 1) and
 *         its count
 * Both decode to the same struct st_hist, so percentiles and merges are
 * those of the histogram rank 0 held when it stored the row.
 */
#ifndef ST_HISTBLOB_H
#define ST_HISTBLOB_H

#include "../../common/hist.h"

#include <sqlite3.h>
#include <stddef.h>

#define ST_HISTBLOB_SPARSE 1
/* Bytes st_histblob_encode writes at most: 4 + 2 varints a bucket, 10 bytes each. */
#define ST_HISTBLOB_MAX ((4 + 2 * ST_HIST_BUCKETS) * 10)

/* h in the sparse encoding into buf (ST_HISTBLOB_MAX bytes): the bytes written. */
size_t st_histblob_encode(const struct st_hist *h, unsigned char *buf);

/* A stored blob of len bytes in encoding enc (0 for a NULL hist_enc, or
 * ST_HISTBLOB_SPARSE) into h: 0, or -1 when it is not one (a length that is
 * not the struct's, a bucket out of range, buckets that do not add up to
 * the count, bytes left over, an unknown encoding). */
int st_histblob_decode(const void *blob, size_t len, int enc, struct st_hist *h);

/* Registers the aggregate SQL function st_hist_quantile(hist, hist_enc, q)
 * on db: the histograms of the rows merged (either encoding; NULL hist
 * skipped), the value at quantile q in [0, 1] (1: the exact max; NULL when
 * no row had one). E.g. per phase over every rank, it equals phase_run's
 * lat_p50_ns .. lat_max_ns. SQLITE_OK or an SQLite error code. */
int st_histblob_functions(sqlite3 *db);

#endif
