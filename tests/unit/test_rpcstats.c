/*
 * What went over the wire: the mountstats parser and the delta of two
 * readings, on fixtures read from a 6.1 guest of the VM lab
 * (tests/fixtures/mountstats-guest-*.txt: after mounting NFSv4.2 with
 * rsize=wsize=64k, after a 2 MiB O_DIRECT write in 1 MiB calls, after reading
 * it back) and on the hand-made tests/fixtures/mountstats.txt (nconnect,
 * udp, stacked mounts).
 */
#include "../../common/util.h"
#include "../../worker/rpcstats.h"
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct st_rpc_op *op_of(const struct st_rpc_result *x, const char *name)
{
	for (uint32_t i = 0; i < x->nops; i++)
		if (strcmp(x->op[i].name, name) == 0)
			return &x->op[i];
	return NULL;
}

static const struct st_rpc_op none;

static void parse_guest(void)
{
	char *t = unit_slurp("tests/fixtures/mountstats-guest-1.txt");
	struct st_rpc_snap *s = calloc(1, sizeof(*s));
	CHECK(t && s);
	if (!t || !s)
		goto out;
	CHECK_EQ_INT(st_rpc_parse(t, "/mnt/b", s), 0);
	CHECK_EQ_INT(s->nfs, 1);
	CHECK_EQ_INT(s->nops, 69); /* the NFSv4.2 list of a 6.1 client */
	CHECK_EQ_INT(s->xprts, 1);
	CHECK_EQ_INT(s->connects, 2);
	CHECK_EQ_INT(s->sends, 59);
	CHECK_EQ_INT(s->recvs, 59);
	CHECK_EQ_INT(s->backlog_u, 0);
	int w = -1;
	for (int i = 0; i < s->nops; i++)
		if (!strcmp(s->op[i].name, "WRITE"))
			w = i;
	CHECK(w >= 0);
	if (w >= 0) {
		static const uint64_t want[ST_RPC_FIELDS] = { 32, 32, 0, 2103296, 3584, 120, 85, 227, 0 };
		for (int f = 0; f < ST_RPC_FIELDS; f++)
			CHECK_EQ_INT(s->op[w].v[f], want[f]);
	}
	/* a trailing slash names the same point; other mounts are not NFS */
	CHECK_EQ_INT(st_rpc_parse(t, "/mnt/b/", s), 0);
	CHECK_EQ_INT(st_rpc_parse(t, "/tmp", s), -ENOENT);
	CHECK_EQ_INT(st_rpc_parse(t, "/mnt", s), -ENOENT);
	CHECK_EQ_INT(st_rpc_parse(NULL, "/mnt/b", s), -ENOENT);
out:
	free(t);
	free(s);
}

/* nconnect=4: four transports summed; a udp transport; a stacked point
 * (tmpfs below, NFSv4 on top): the NFS one. */
static void parse_handmade(void)
{
	char *t = unit_slurp("tests/fixtures/mountstats.txt");
	struct st_rpc_snap *s = calloc(1, sizeof(*s));
	CHECK(t && s);
	if (!t || !s)
		goto out;
	CHECK_EQ_INT(st_rpc_parse(t, "/mnt/nfs42", s), 0);
	CHECK_EQ_INT(s->xprts, 4);
	CHECK_EQ_INT(s->connects, 4);
	CHECK_EQ_INT(s->sends, 64 + 66 + 63 + 64);
	CHECK_EQ_INT(st_rpc_parse(t, "/mnt/stack2", s), 0);
	CHECK_EQ_INT(s->xprts, 1);
	CHECK_EQ_INT(s->sends, 2);
	CHECK_EQ_INT(s->connects, 0);
	CHECK_EQ_INT(st_rpc_parse(t, "/mnt/stack", s), 0);
	CHECK_EQ_INT(s->xprts, 1);
	CHECK_EQ_INT(st_rpc_parse(t, "/mnt/nfs3", s), 0);
	CHECK_EQ_INT(s->age, 4271);
	int r = -1;
	for (int i = 0; i < s->nops; i++)
		if (!strcmp(s->op[i].name, "READ"))
			r = i;
	CHECK(r >= 0 && s->op[r].v[0] == 50 && s->op[r].v[4] == 52435200);
	/* not NFS: no statistics */
	CHECK_EQ_INT(st_rpc_parse(t, "/run", s), -ENOENT);
out:
	free(t);
	free(s);
}

/* The write phase and the read phase of the guest, as a rank sees them. */
static void delta_guest(void)
{
	char *t0 = unit_slurp("tests/fixtures/mountstats-guest-0.txt");
	char *t1 = unit_slurp("tests/fixtures/mountstats-guest-1.txt");
	char *t2 = unit_slurp("tests/fixtures/mountstats-guest-2.txt");
	struct st_rpc_snap *s0 = calloc(1, sizeof(*s0)), *s1 = calloc(1, sizeof(*s1)),
			   *s2 = calloc(1, sizeof(*s2));
	struct st_rpc_result *x = calloc(1, sizeof(*x));
	CHECK(t0 && t1 && t2 && s0 && s1 && s2 && x);
	if (!t0 || !t1 || !t2 || !s0 || !s1 || !s2 || !x)
		goto out;
	CHECK(st_rpc_parse(t0, "/mnt/b", s0) == 0 && st_rpc_parse(t1, "/mnt/b", s1) == 0 &&
	      st_rpc_parse(t2, "/mnt/b", s2) == 0);
	x->rank = 3;
	x->phase = ST_PHASE_WRITE;
	st_rpc_delta(s0, s1, x);
	CHECK(x->version == ST_WIRE_VERSION && x->rank == 3 && x->phase == ST_PHASE_WRITE);
	CHECK(x->source == ST_RPC_MOUNTSTATS && x->basis == ST_RPC_BASIS_INFERRED);
	CHECK(x->note[0] == '\0');
	/* 2 MiB in 1 MiB O_DIRECT calls over wsize=64k: 32 UNSTABLE WRITEs, a COMMIT per call */
	const struct st_rpc_op *w = op_of(x, "WRITE"), *c = op_of(x, "COMMIT"),
			       *r = op_of(x, "READ");
	if (!w)
		w = &none;
	if (!c)
		c = &none;
	if (!r)
		r = &none;
	CHECK_EQ_INT(w->ops, 32);
	CHECK_EQ_INT(w->trans, 32);
	CHECK_EQ_INT(w->bytes_sent, 2103296);
	CHECK(w->bytes_sent >= 2097152 && w->bytes_sent < 2097152 * 105 / 100);
	CHECK_EQ_INT(w->queue_us, 120000);
	CHECK_EQ_INT(w->rtt_us, 85000);
	CHECK_EQ_INT(w->exe_us, 227000);
	CHECK_EQ_INT(w->unstable, 32);
	CHECK_EQ_INT(w->file_sync, 0);
	CHECK_EQ_INT(c->ops, 2);
	CHECK_EQ_INT(r->ops, 0); /* kept, though unused */
	CHECK(op_of(x, "OPEN") && op_of(x, "CLOSE"));
	CHECK(!op_of(x, "GETATTR") && !op_of(x, "NULL")); /* unused ones are not */
	CHECK(!strcmp(x->op[0].name, "WRITE"));		  /* the busiest first */
	CHECK_EQ_INT(x->xprts, 1);
	CHECK_EQ_INT(x->sends, 59 - 22);
	CHECK_EQ_INT(x->connects, 0);

	x->phase = ST_PHASE_READ;
	st_rpc_delta(s1, s2, x);
	w = op_of(x, "WRITE");
	r = op_of(x, "READ");
	c = op_of(x, "COMMIT");
	CHECK(w && r && c);
	if (w && r && c) {
		CHECK(w->ops == 0 && w->file_sync == 0 && w->unstable == 0);
		CHECK_EQ_INT(c->ops, 0);
		CHECK_EQ_INT(r->ops, 48);
		CHECK_EQ_INT(r->bytes_recv, 2102144);
		CHECK(!strcmp(x->op[0].name, "READ"));
	}
	/* a remount between the readings: the counters go back, counted from zero */
	st_rpc_delta(s2, s0, x);
	CHECK(strstr(x->note, "went back") != NULL);
	/* O_DIRECT with 1 MiB calls and a 1 MiB wsize: FILE_SYNC, no COMMIT */
	s1->op[0].v[0] = 0; /* (any op) */
	for (int i = 0; i < s1->nops; i++)
		if (!strcmp(s1->op[i].name, "COMMIT"))
			s1->op[i].v[0] = s0->op[i].v[0];
	st_rpc_delta(s0, s1, x);
	w = op_of(x, "WRITE");
	CHECK(w && w->file_sync == 32 && w->unstable == 0);
out:
	free(t0);
	free(t1);
	free(t2);
	free(s0);
	free(s1);
	free(s2);
	free(x);
}

const struct unit_test unit_rpcstats[] = {
	{ "rpcstats: a guest's mountstats: ops, transports, per-op fields", parse_guest },
	{ "rpcstats: nconnect, udp and stacked mounts", parse_handmade },
	{ "rpcstats: the delta of a write and a read phase, stable_how from COMMITs", delta_guest },
	{ NULL, NULL },
};
