/*
 * server.c - the server options' step (see server.h). Why a step of its
 * own, before the mounts: a knfsd export's options bind at mount time
 * (mountd hands the client's file handles out under them) and the thread
 * count is the server's for every client, so they are set once per
 * combination by the server host and only then do the clients mount.
 */
#include "server.h"

#include "../../common/util.h"
#include "../../worker/srvopts.h"
#include "die.h"
#include "roles.h"
#include "steps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sets_server_option(const struct st_combo *c)
{
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if ((st_options[i].flags & ST_OF_SERVER) && c->v[i] != ST_UNSET)
			return 1;
	return 0;
}

/* Does rank r apply the server options? A server rank on the host that
 * serves the export the clients use (--mount's or the nfs:// --target's
 * server), or every server rank when the run names no such server: a
 * --servers host that only serves something else (the lab's ganesha host
 * beside a knfsd guest) is sampled, never changed. */
static int applies(const struct job *j, int r)
{
	char ts[256];
	if (j->roles[r] != ST_ROLE_SERVER)
		return 0;
	st_target_server(&j->cfg, ts, sizeof(ts));
	return !ts[0] || st_host_matches(&j->hosts[r], ts);
}

struct server_work {
	struct job *j;
	const struct st_combo *c;
	struct st_prepare_status *srv;
};

/* "--server-threads 8 --server-export async": what c asks of the server. */
static void asked(const struct job *j, const struct st_combo *c, char *buf, size_t n)
{
	buf[0] = '\0';
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SERVER) || c->v[i] == ST_UNSET)
			continue;
		char v[256];
		size_t l = strlen(buf);
		st_opt_value_text(&j->cfg, i, c->v[i], v, sizeof(v));
		snprintf(buf + l, n - l, "%s--%s %s", l ? " " : "", st_options[i].name, v);
	}
}

static void apply_local(void *arg)
{
	struct server_work *w = arg;
	struct job *j = w->j;
	char path[256], msg[200];
	if (!j->srv && !(j->srv = calloc(1, sizeof(*j->srv))))
		st_die("out of memory");
	st_srv_export_path(&j->cfg, path, sizeof(path));
	int rc = st_srv_apply(j->srv, &j->cfg, w->c, path, &w->srv->eff, msg, sizeof(msg));
	if (!rc)
		return;
	char what[300];
	asked(j, w->c, what, sizeof(what));
	w->srv->err = -rc;
	w->srv->op = ST_OP_PREPARE;
	snprintf(w->srv->message, sizeof(w->srv->message), "%s: host %s (rank %d) %s", what,
		 j->hosts[j->rank].hostname, j->rank, msg);
}

void st_server_step(struct job *j, const struct st_combo *c, struct st_prepare_status *srv)
{
	memset(srv, 0, sizeof(*srv));
	if (!sets_server_option(c))
		return;
	struct server_work w = { .j = j, .c = c, .srv = srv };
	int64_t start = st_now_ns();
	if (applies(j, j->rank))
		st_step_local(j, apply_local, &w, start, "the end of applying the server options");
	int any = 0;
	for (int r = 0; r < j->size && !any; r++)
		any = applies(j, r);
	if (j->rank == 0 && !any) {
		char what[300];
		asked(j, c, what, sizeof(what));
		srv->err = EINVAL;
		srv->op = ST_OP_PREPARE;
		snprintf(srv->message, sizeof(srv->message), "%s: no rank of this job runs on the "
			 "export's NFS server (a rank on the --mount's or the --target's server, "
			 "named by --servers if need be)", what);
	}
	/* no client mounts before every server host is done */
	MPI_Request q;
	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	st_step_await(j, &q, start, "the end of the server options");
}

void st_server_merge(struct st_prepare_status *ps, const struct st_prepare_status *srv)
{
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if ((st_options[i].flags & ST_OF_SERVER) && st_effective_known(&srv->eff, i))
			st_effective_set(&ps->eff, i, srv->eff.v[i]);
	if (srv->eff.server_export[0])
		st_copy(ps->eff.server_export, sizeof(ps->eff.server_export),
			srv->eff.server_export);
	if (srv->err && !ps->err) {
		ps->err = srv->err;
		ps->op = srv->op;
		st_copy(ps->message, sizeof(ps->message), srv->message);
	}
}

void st_server_restore(struct job *j, char *left, size_t n)
{
	char msg[200];
	if (!j->srv)
		return;
	if (st_srv_restore(j->srv, msg, sizeof(msg))) {
		fprintf(stderr, "stcluster: rank %d (host %s): the server's own settings: %s\n",
			j->rank, j->hosts[j->rank].hostname, msg);
		size_t l = strlen(left);
		snprintf(left + l, n - l, "%sthe server's own settings: %s", l ? "; " : "", msg);
	}
}
