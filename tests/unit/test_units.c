/* Size, count and duration parsing: good values and every kind of bad one. */
#include "../../common/units.h"
#include "../../common/util.h"
#include "unit.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void size_good(void)
{
	static const struct {
		const char *s;
		int64_t v;
	} ok[] = { { "0", 0 },		    { "1", 1 },		     { "4k", 4096 },
		   { "4K", 4096 },	    { "4kb", 4096 },	     { "4KiB", 4096 },
		   { "1m", 1 << 20 },	    { "64m", 64LL << 20 },   { "1g", 1LL << 30 },
		   { "8t", 8LL << 40 },	    { "512b", 512 },	     { "1000", 1000 },
		   { "9223372036854775807", INT64_MAX } };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t v = -1;
		const char *why = NULL;
		CHECK(st_parse_size(ok[i].s, &v, &why) == 0);
		CHECK_EQ_INT(v, ok[i].v);
	}
}

static void size_bad(void)
{
	static const char *const bad[] = { "",	   "12q",  "-1m",  "+4k", " 4k",  "4k ", "1.5m",
					   "k",	   "4kk",  "4kx",  "0x10", "4 k", "1e3",  "99999999999999999999",
					   "8388608t", "9223372036854775808", "4mib2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v = 0;
		const char *why = NULL;
		if (st_parse_size(bad[i], &v, &why) == 0)
			fprintf(stderr, "    accepted bad size '%s'\n", bad[i]);
		CHECK(st_parse_size(bad[i], &v, &why) == -1);
		CHECK(why != NULL);
	}
}

static void count_and_duration(void)
{
	int64_t v;
	const char *why;
	CHECK(st_parse_count("17", &v, &why) == 0 && v == 17);
	CHECK(st_parse_count("1k", &v, &why) == -1);
	CHECK(st_parse_count("-3", &v, &why) == -1);
	CHECK(st_parse_duration("30", 1000000000, &v, &why) == 0 && v == 30000000000LL);
	CHECK(st_parse_duration("2ms", 1000000000, &v, &why) == 0 && v == 2000000);
	CHECK(st_parse_duration("1.5s", 1000000000, &v, &why) == 0 && v == 1500000000);
	CHECK(st_parse_duration("250us", 1, &v, &why) == 0 && v == 250000);
	CHECK(st_parse_duration("5m", 1, &v, &why) == 0 && v == 300000000000LL);
	/* fractions exact to the nanosecond, rounded down */
	CHECK(st_parse_duration("2.251312h", 1, &v, &why) == 0);
	CHECK_EQ_INT(v, 8104723200000LL);
	CHECK(st_parse_duration("0.999999999h", 1, &v, &why) == 0);
	CHECK_EQ_INT(v, 3599999996400LL);
	CHECK(st_parse_duration("0.000000001ms", 1, &v, &why) == 0);
	CHECK_EQ_INT(v, 0);
	CHECK(st_parse_duration("2x", 1, &v, &why) == -1);
	CHECK(st_parse_duration("1.", 1, &v, &why) == -1);
	CHECK(st_parse_duration("", 1, &v, &why) == -1);
}

static void size_format_roundtrip(void)
{
	int64_t vals[] = { 0, 1, 1000, 4096, 65536, 1 << 20, 3LL << 30, 5LL << 40, 4097 };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		char buf[32];
		int64_t back;
		const char *why;
		st_format_size(vals[i], buf, sizeof(buf));
		CHECK(st_parse_size(buf, &back, &why) == 0);
		CHECK_EQ_INT(back, vals[i]);
	}
	char buf[32];
	st_format_size(4096, buf, sizeof(buf));
	CHECK(strcmp(buf, "4k") == 0);
	st_format_size(1 << 20, buf, sizeof(buf));
	CHECK(strcmp(buf, "1m") == 0);
}

static void duration_format_roundtrip(void)
{
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = { { 0, "0ns" },		{ 7, "7ns" },
		      { 250000, "250us" },	{ 1500000000, "1500ms" },
		      { 90000000000, "90s" },	{ 604800000000000, "604800s" },
		      { 68719738879, "68719738879ns" }, { 1234567800000, "1234567800us" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		int64_t back = -1;
		const char *why;
		st_format_duration(cases[i].ns, buf, sizeof(buf));
		if (strcmp(buf, cases[i].text))
			fprintf(stderr, "    %lld ns written '%s'\n", (long long)cases[i].ns, buf);
		CHECK(strcmp(buf, cases[i].text) == 0);
		CHECK(st_parse_duration(buf, 1, &back, &why) == 0);
		CHECK_EQ_INT(back, cases[i].ns);
	}
}

/* A condition variable of st_cond_init times out at a deadline read on
 * the monotonic clock, never before it: one on CLOCK_REALTIME would take
 * the same number (seconds since boot) for a time in 1970, long past, and
 * return at once. */
static void cond_deadline_is_monotonic(void)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv;
	CHECK_EQ_INT(st_cond_init(&cv), 0);
	pthread_mutex_lock(&mu);
	for (int k = 0; k < 3; k++) {
		int64_t until = st_now_ns() + 20000000LL * (k + 1), woke = 0;
		int rc;
		while ((rc = st_cond_wait_until(&cv, &mu, until)) == 0)
			woke++; /* spurious: nobody signals */
		int64_t now = st_now_ns();
		CHECK_EQ_INT(rc, ETIMEDOUT);
		if (now < until)
			fprintf(stderr, "    returned %lld ns before the deadline (%lld wakeups)\n",
				(long long)(until - now), (long long)woke);
		CHECK(now >= until);
	}
	/* a deadline already past: at once */
	CHECK_EQ_INT(st_cond_wait_until(&cv, &mu, st_now_ns() - 1), ETIMEDOUT);
	pthread_mutex_unlock(&mu);
	pthread_cond_destroy(&cv);
}

struct cond_signal {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
};

static void *cond_signaller(void *p)
{
	struct cond_signal *s = p;
	pthread_mutex_lock(&s->mu);
	s->done = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* A signal ends the wait before its deadline (here an hour away). */
static void cond_signal_ends_wait(void)
{
	struct cond_signal s = { .mu = PTHREAD_MUTEX_INITIALIZER };
	CHECK_EQ_INT(st_cond_init(&s.cv), 0);
	pthread_t t;
	pthread_mutex_lock(&s.mu);
	CHECK_EQ_INT(pthread_create(&t, NULL, cond_signaller, &s), 0);
	int64_t until = st_now_ns() + 3600LL * 1000000000LL;
	int rc = 0;
	while (!s.done && (rc = st_cond_wait_until(&s.cv, &s.mu, until)) == 0)
		;
	CHECK_EQ_INT(rc, 0);
	CHECK(s.done);
	CHECK(st_now_ns() < until);
	pthread_mutex_unlock(&s.mu);
	pthread_join(t, NULL);
	pthread_cond_destroy(&s.cv);
}

struct held_mutex {
	pthread_mutex_t mu;
	int held[2], release[2]; /* pipes: "I hold it", "let it go" */
};

static void *mutex_holder(void *p)
{
	struct held_mutex *h = p;
	char c = 1;
	pthread_mutex_lock(&h->mu);
	(void)!write(h->held[1], &c, 1);
	(void)!read(h->release[0], &c, 1);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* st_mutex_lock_until: a mutex another thread holds until told is not
 * taken, and not before the monotonic deadline (one read on CLOCK_REALTIME
 * would be long past and return at once); once let go it is taken, before
 * a deadline an hour away. */
static void mutex_lock_until_is_monotonic(void)
{
	struct held_mutex h = { .mu = PTHREAD_MUTEX_INITIALIZER };
	CHECK(pipe(h.held) == 0 && pipe(h.release) == 0);
	pthread_t t;
	CHECK_EQ_INT(pthread_create(&t, NULL, mutex_holder, &h), 0);
	char c = 0;
	CHECK(read(h.held[0], &c, 1) == 1);
	int64_t until = st_now_ns() + 30000000LL;
	CHECK_EQ_INT(st_mutex_lock_until(&h.mu, until), ETIMEDOUT);
	CHECK(st_now_ns() >= until);
	CHECK(write(h.release[1], &c, 1) == 1);
	until = st_now_ns() + 3600LL * 1000000000LL;
	CHECK_EQ_INT(st_mutex_lock_until(&h.mu, until), 0);
	CHECK(st_now_ns() < until);
	pthread_mutex_unlock(&h.mu);
	pthread_join(t, NULL);
	for (int i = 0; i < 2; i++) {
		close(h.held[i]);
		close(h.release[i]);
	}
}

const struct unit_test unit_units[] = {
	{ "clock: a mutex wait ends at a monotonic deadline, or when it is let go", mutex_lock_until_is_monotonic },
	{ "clock: a condition wait ends at a monotonic deadline, never before", cond_deadline_is_monotonic },
	{ "clock: a signal ends a condition wait before its deadline", cond_signal_ends_wait },
	{ "units: sizes accepted", size_good },
	{ "units: bad sizes refused", size_bad },
	{ "units: counts and durations", count_and_duration },
	{ "units: size text round trip", size_format_roundtrip },
	{ "units: duration text is exact and reads back", duration_format_roundtrip },
	{ NULL, NULL },
};
