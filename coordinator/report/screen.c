/*
 * screen.c - the report as a person reads it (see screen.h).
 *
 * The rows are read whole first: a column's unit is chosen from its
 * largest value (so every row of it compares at a glance), and a column
 * that does not fit the width is left out, the least needed first; what
 * was left out is said below the table, and `--wide` shows every column.
 */
#include "screen.h"

#include "../../common/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MAXCOL 96 /* statement columns: seq, iteration, options, figures, texts */

/* The statement's columns after the options (screen.h). */
enum { F_PHASE, F_STATUS, F_MBPS, F_MIN, F_MAX, F_IOPS, F_FIXED };

struct raw_row {
	char *text[MAXCOL]; /* text columns (NULL: NULL) */
	double num[MAXCOL]; /* numeric columns (NAN: NULL) */
};

struct scr {
	const struct st_screen *s;
	struct raw_row *rows;
	int nrow, cap, ncol, oom;
	char **note;	     /* the footnotes, numbered from 1 */
	int nnote, notecap;
	unsigned codes;	     /* the verdict codes some row has, a bit each */
};

/* Statement column of field f (F_*), of percentile k, of the max, verdict, flags, note. */
static int col_of(const struct scr *x, int f) { return 2 + x->s->nopts + f; }
static int col_pct(const struct scr *x, int k) { return col_of(x, F_FIXED) + k; }
static int col_lmax(const struct scr *x) { return col_pct(x, x->s->pcts->n); }

static int keep_row(sqlite3_stmt *st, void *ctx)
{
	struct scr *x = ctx;
	if (x->nrow == x->cap) {
		int cap = x->cap ? 2 * x->cap : 64;
		struct raw_row *r = realloc(x->rows, (size_t)cap * sizeof(*r));
		if (!r)
			return -1;
		x->rows = r;
		x->cap = cap;
	}
	struct raw_row *r = &x->rows[x->nrow++];
	x->ncol = sqlite3_column_count(st) < MAXCOL ? sqlite3_column_count(st) : MAXCOL;
	for (int i = 0; i < x->ncol; i++) {
		int t = sqlite3_column_type(st, i);
		r->num[i] = t == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
		r->text[i] = NULL;
		if (t != SQLITE_NULL && !(r->text[i] = strdup((const char *)sqlite3_column_text(st, i))))
			x->oom = 1;
	}
	return x->oom ? -1 : 0;
}

/* ---- units, numbers, codes ---- */

/* The largest of scales[0..n) not above the column's largest value (the
 * first when there is none). */
static int pick_scale(const struct scr *x, int col, double mul, const double *scales, int n)
{
	double top = 0;
	for (int k = 0; k < x->nrow; k++)
		if (!isnan(x->rows[k].num[col]) && x->rows[k].num[col] * mul > top)
			top = x->rows[k].num[col] * mul;
	int best = 0;
	for (int i = 0; i < n; i++)
		if (top >= scales[i])
			best = i;
	return best;
}

/* v with three significant figures or so, "" for NULL. */
static void fmt_num(double v, char *buf, size_t n)
{
	double a = fabs(v);
	if (isnan(v))
		buf[0] = '\0';
	else
		snprintf(buf, n, a >= 100 || a == 0 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
}

static const struct {
	const char *code, *prefix, *meaning;
	int footnote; /* the verdict's own text is a footnote of the row */
} verdicts[] = {
	{ "NET", "network-bound", "at the network's limit (85 % or more of it, measured alone)", 0 },
	{ "BUSY", "disk-bound:", "the export's disk was busy or at its limit (figures: its footnote)", 1 },
	{ "DISK", "disk-bound", "at the server disk's limit (85 % or more of it, measured alone)", 0 },
	{ "CPU", "server CPU", "the NFS server host's CPUs busy (its footnote)", 1 },
	{ "NFSD", "nfsd threads", "calls waited for an idle nfsd thread (its footnote)", 1 },
	{ "NFS", "below the parts", "below the parts measured alone: the NFS stack or the client", 0 },
	{ "ABOVE", "above the measured limit", "above a limit measured alone (why: its footnote)", 1 },
	{ "CACHE", "served from", "served from the server's page cache (its footnote)", 1 },
	{ "OTHER", "", "see its footnote", 1 },
};
#define NVERDICTS ((int)(sizeof(verdicts) / sizeof(verdicts[0])))

static int verdict_code(const char *v)
{
	for (int i = 0; i < NVERDICTS - 1; i++)
		if (strncmp(v, verdicts[i].prefix, strlen(verdicts[i].prefix)) == 0)
			return i;
	return NVERDICTS - 1;
}

/* The number of footnote t (added when new), or 0 out of memory. */
static int footnote(struct scr *x, const char *t)
{
	for (int i = 0; i < x->nnote; i++)
		if (strcmp(x->note[i], t) == 0)
			return i + 1;
	if (x->nnote == x->notecap) {
		int cap = x->notecap ? 2 * x->notecap : 16;
		char **n = realloc(x->note, (size_t)cap * sizeof(*n));
		if (!n)
			return 0;
		x->note = n;
		x->notecap = cap;
	}
	if (!(x->note[x->nnote] = strdup(t)))
		return 0;
	return ++x->nnote;
}

/* ---- the displayed columns ---- */

struct dcol {
	char name[32];	 /* for --columns */
	char head[32];
	int num;	 /* right-aligned */
	int drop;	 /* 0: always shown; else left out first when higher */
	char **cell;	 /* nrow strings */
	int w;
	int shown;
};

static void dcol_init(struct dcol *d, const char *name, const char *head, int num, int drop)
{
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->head, sizeof(d->head), "%s", head);
	d->num = num;
	d->drop = drop;
	d->shown = 1;
	d->w = 0;
	d->cell = NULL;
}

/* Column c of the statement, scaled by 1/scale (mul first; scale 0: a
 * whole number as it is), each row's cell. */
static int fill_num(struct dcol *d, const struct scr *x, int c, double mul, double scale)
{
	if (!(d->cell = calloc((size_t)(x->nrow ? x->nrow : 1), sizeof(char *))))
		return -1;
	for (int k = 0; k < x->nrow; k++) {
		char b[48];
		if (scale == 0 && !isnan(x->rows[k].num[c]))
			snprintf(b, sizeof(b), "%.0f", x->rows[k].num[c]);
		else
			fmt_num(x->rows[k].num[c] * mul / scale, b, sizeof(b));
		if (!(d->cell[k] = strdup(b)))
			return -1;
	}
	return 0;
}

static int fill_text(struct dcol *d, const struct scr *x, int c)
{
	if (!(d->cell = calloc((size_t)(x->nrow ? x->nrow : 1), sizeof(char *))))
		return -1;
	for (int k = 0; k < x->nrow; k++)
		if (!(d->cell[k] = strdup(x->rows[k].text[c] ? x->rows[k].text[c] : "")))
			return -1;
	return 0;
}

/* The cells of the notes and verdict columns: codes and footnote numbers. */
static int fill_notes(struct dcol *ver, struct dcol *notes, struct scr *x)
{
	int cv = col_lmax(x) + 1, cf = cv + 1, cn = cv + 2;
	size_t n = (size_t)(x->nrow ? x->nrow : 1);
	if (!(ver->cell = calloc(n, sizeof(char *))) || !(notes->cell = calloc(n, sizeof(char *))))
		return -1;
	for (int k = 0; k < x->nrow; k++) {
		const struct raw_row *r = &x->rows[k];
		char refs[64] = "";
		const char *v = r->text[cv];
		int code = v ? verdict_code(v) : -1;
		if (code >= 0)
			x->codes |= 1u << code;
		const char *texts[3] = { r->text[cn], r->text[cf], code >= 0 && verdicts[code].footnote ? v : NULL };
		for (int i = 0; i < 3; i++) {
			int num = texts[i] ? footnote(x, texts[i]) : 0;
			size_t l = strlen(refs);
			if (texts[i] && !num)
				return -1;
			if (num)
				snprintf(refs + l, sizeof(refs) - l, "%s%d", l ? "," : "", num);
		}
		if (!(ver->cell[k] = strdup(code >= 0 ? verdicts[code].code : "")) ||
		    !(notes->cell[k] = strdup(refs)))
			return -1;
	}
	return 0;
}

/* Are all of column c's values NULL (text: or "ok", for status)? */
static int all_empty(const struct scr *x, int c, const char *also)
{
	for (int k = 0; k < x->nrow; k++) {
		const char *t = x->rows[k].text[c];
		if (t && (!also || strcmp(t, also) != 0))
			return 0;
	}
	return 1;
}

/* The slowest-fastest client column, in the aggregate's unit. */
static int fill_spread(struct dcol *d, const struct scr *x, double scale)
{
	if (!(d->cell = calloc((size_t)(x->nrow ? x->nrow : 1), sizeof(char *))))
		return -1;
	for (int k = 0; k < x->nrow; k++) {
		char lo[48], hi[48], b[100] = "";
		double a = x->rows[k].num[col_of(x, F_MIN)], z = x->rows[k].num[col_of(x, F_MAX)];
		fmt_num(a * 1e6 / scale, lo, sizeof(lo));
		fmt_num(z * 1e6 / scale, hi, sizeof(hi));
		if (!isnan(a) && !isnan(z))
			snprintf(b, sizeof(b), "%s-%s", lo, hi);
		if (!(d->cell[k] = strdup(b)))
			return -1;
	}
	return 0;
}

static const double bw_si[] = { 1, 1e3, 1e6, 1e9, 1e12 };
static const double bw_iec[] = { 1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0 };
static const char *const bw_si_names[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
static const char *const bw_iec_names[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
static const double by1000[] = { 1, 1e3, 1e6, 1e9 };
static const char *const lat_names[] = { "ns", "us", "ms", "s" };
static const char *const iops_names[] = { "IOPS", "k IOPS", "M IOPS", "G IOPS" };

/* Every displayed column of x into d (at most MAXCOL): *n of them; the
 * aggregate's unit into unit, its size in words ("10^6"). 0, or -1 out of
 * memory. */
static int build_columns(struct scr *x, struct dcol *d, int *n, char *unit, size_t un, char *words,
			 size_t wn)
{
	const struct st_screen *s = x->s;
	int i = 0, rc = 0;
	dcol_init(&d[i], "seq", "seq", 1, 0);
	rc |= fill_num(&d[i++], x, 0, 1, 0);
	dcol_init(&d[i], "iter", "iter", 1, 0);
	rc |= fill_num(&d[i], x, 1, 1, 0);
	d[i++].shown = !all_empty(x, 1, NULL);
	for (int k = 0; k < s->nopts; k++) {
		dcol_init(&d[i], s->opt_names[k], s->opt_names[k], 0, 0);
		rc |= fill_text(&d[i++], x, 2 + k);
	}
	dcol_init(&d[i], "phase", "phase", 0, 0);
	rc |= fill_text(&d[i++], x, col_of(x, F_PHASE));
	dcol_init(&d[i], "status", "status", 0, 0);
	rc |= fill_text(&d[i], x, col_of(x, F_STATUS));
	d[i++].shown = !all_empty(x, col_of(x, F_STATUS), "ok");
	const double *bs = s->iec ? bw_iec : bw_si;
	int b = pick_scale(x, col_of(x, F_MBPS), 1e6, bs, 5);
	snprintf(unit, un, "%s", (s->iec ? bw_iec_names : bw_si_names)[b]);
	if (s->iec)
		snprintf(words, wn, "2^%d", 10 * b);
	else
		snprintf(words, wn, "10^%d", 3 * b);
	dcol_init(&d[i], "bw", unit, 1, 0);
	rc |= fill_num(&d[i++], x, col_of(x, F_MBPS), 1e6, bs[b]);
	char head[32];
	snprintf(head, sizeof(head), "clients %s", unit);
	dcol_init(&d[i], "clients", head, 1, 5);
	rc |= fill_spread(&d[i++], x, bs[b]);
	int io = pick_scale(x, col_of(x, F_IOPS), 1, by1000, 4);
	dcol_init(&d[i], "iops", iops_names[io], 1, 8);
	rc |= fill_num(&d[i++], x, col_of(x, F_IOPS), 1, by1000[io]);
	for (int k = 0; k <= s->pcts->n && i < MAXCOL - 2; k++) {
		int c = k < s->pcts->n ? col_pct(x, k) : col_lmax(x);
		int l = pick_scale(x, c, 1, by1000, 4);
		char name[24];
		if (k < s->pcts->n)
			st_pct_label(s->pcts->q[k], name, sizeof(name));
		else
			snprintf(name, sizeof(name), "max");
		snprintf(head, sizeof(head), "%s %s", name, lat_names[l]);
		/* the first and last percentile stay longest, the max goes first */
		dcol_init(&d[i], name, head, 1, k == s->pcts->n ? 9 : k == 0 ? 4 : k == s->pcts->n - 1 ? 6 : 7);
		rc |= fill_num(&d[i++], x, c, 1, by1000[l]);
	}
	dcol_init(&d[i], "verdict", "verdict", 0, 3);
	dcol_init(&d[i + 1], "notes", "notes", 0, 0);
	rc |= fill_notes(&d[i], &d[i + 1], x);
	d[i].shown = x->codes != 0;
	d[i + 1].shown = x->nnote > 0;
	*n = i + 2;
	return rc ? -1 : 0;
}

/* --columns: only the columns it names, in the table's order. 0, or -1
 * with the name that is none of them in bad. */
static int pick_columns(struct dcol *d, int n, const char *list, char *bad, size_t bn)
{
	for (int i = 0; i < n; i++)
		d[i].shown = 0;
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		int found = 0;
		for (int i = 0; i < n; i++)
			if (strlen(d[i].name) == l && strncmp(d[i].name, p, l) == 0)
				d[i].shown = found = 1;
		if (!found) {
			snprintf(bad, bn, "%.*s", (int)(l < 60 ? l : 60), p);
			return -1;
		}
		p += l + (p[l] == ',');
	}
	return 0;
}

/* The width of the shown columns, each as wide as its widest cell. */
static int table_width(struct dcol *d, int n, int nrow)
{
	int w = 0, shown = 0;
	for (int i = 0; i < n; i++) {
		d[i].w = (int)strlen(d[i].head);
		for (int k = 0; k < nrow; k++)
			if ((int)strlen(d[i].cell[k]) > d[i].w)
				d[i].w = (int)strlen(d[i].cell[k]);
		if (d[i].shown)
			w += d[i].w + (shown++ ? 2 : 0);
	}
	return w;
}

/* Leave out the columns that may go, highest drop first, until the table
 * fits; into left: the names of those left out. */
static void fit(struct dcol *d, int n, int nrow, int width, char *left, size_t ln)
{
	left[0] = '\0';
	while (table_width(d, n, nrow) > width) {
		int worst = -1;
		for (int i = 0; i < n; i++)
			if (d[i].shown && d[i].drop && (worst < 0 || d[i].drop > d[worst].drop))
				worst = i;
		if (worst < 0)
			return;
		d[worst].shown = 0;
		size_t l = strlen(left);
		snprintf(left + l, ln - l, "%s%s", l ? ", " : "", d[worst].name);
	}
}

/* text wrapped at width, its first line after lead, the others indented as
 * deep as lead. */
static void wrap(FILE *out, const char *lead, const char *text, int width)
{
	int col = fprintf(out, "%s", lead), indent = (int)strlen(lead), first = 1;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		int l = (int)strcspn(p, " ");
		if (!l)
			break;
		if (!first && col + 1 + l > width) {
			col = fprintf(out, "\n%*s", indent, "") - 1;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		col += fprintf(out, "%.*s", l, p);
		first = 0;
		p += l;
	}
	fputc('\n', out);
}

static void print_rows(FILE *out, const struct dcol *d, int n, int nrow)
{
	for (int k = -1; k < nrow; k++) {
		struct st_strbuf line = { 0 };
		for (int i = 0, shown = 0; i < n; i++) {
			if (!d[i].shown)
				continue;
			const char *c = k < 0 ? d[i].head : d[i].cell[k];
			st_strbuf_addf(&line, d[i].num && k >= 0 ? "%s%*s" : "%s%-*s", shown++ ? "  " : "",
				       d[i].w, c);
		}
		size_t l = line.p ? line.len : 0;
		while (l && line.p[l - 1] == ' ')
			l--;
		fprintf(out, "%.*s\n", (int)l, line.p ? line.p : "");
		st_strbuf_release(&line);
	}
}

/* Below the table: what the codes mean, what was left out, the footnotes. */
static void print_legend(FILE *out, const struct scr *x, const char *left)
{
	int w = x->s->width;
	if (x->codes) {
		struct st_strbuf b = { 0 };
		for (int i = 0; i < NVERDICTS; i++)
			if (x->codes & 1u << i)
				st_strbuf_addf(&b, "%s%s = %s", b.p ? "; " : "", verdicts[i].code,
					       verdicts[i].meaning);
		wrap(out, "verdict: ", b.p ? b.p : "", w);
		st_strbuf_release(&b);
	}
	if (left[0]) {
		char t[512];
		snprintf(t, sizeof(t), "%s (to fit %d columns; --wide or --columns shows them)", left, w);
		wrap(out, "left out: ", t, w);
	}
	for (int i = 0; i < x->nnote; i++) {
		char lead[16];
		snprintf(lead, sizeof(lead), "[%d] ", i + 1);
		wrap(out, lead, x->note[i], w);
	}
}

static void scr_free(struct scr *x, struct dcol *d, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; d[i].cell && k < x->nrow; k++)
			free(d[i].cell[k]);
		free(d[i].cell);
	}
	for (int k = 0; k < x->nrow; k++)
		for (int i = 0; i < x->ncol; i++)
			free(x->rows[k].text[i]);
	free(x->rows);
	for (int i = 0; i < x->nnote; i++)
		free(x->note[i]);
	free(x->note);
}

int st_screen_print(sqlite3 *db, const char *sql, const struct st_qparams *p,
		    const struct st_screen *s, FILE *out)
{
	struct scr x = { .s = s };
	struct dcol *d = calloc(MAXCOL, sizeof(*d));
	char err[512] = "out of memory", unit[16], left[512] = "", scale_words[16] = "";
	int n = 0, rc = 0;
	if (!d || st_query_rows(db, sql, p, keep_row, &x, err, sizeof(err)) < 0 ||
	    build_columns(&x, d, &n, unit, sizeof(unit), scale_words, sizeof(scale_words))) {
		fprintf(stderr, "stcluster report: %s\n", x.oom ? "out of memory" : err);
		rc = 1;
	} else if (s->columns && pick_columns(d, n, s->columns, left, sizeof(left))) {
		fprintf(stderr, "stcluster report: --columns: no column '%s' (these are: ", left);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", d[i].name);
		fprintf(stderr, ")\n");
		rc = 2;
	} else {
		if (!s->columns)
			fit(d, n, x.nrow, s->width, left, sizeof(left));
		char head[512];
		snprintf(head, sizeof(head),
			 "run %s; %s = %s bytes/s (--units si|iec), aggregate = all client bytes / "
			 "(latest end - earliest start); clients: slowest-fastest; pN: latency "
			 "percentiles; --wide: every column",
			 s->run, unit, scale_words);
		wrap(out, "# ", head, s->width);
		print_rows(out, d, n, x.nrow);
		print_legend(out, &x, left);
	}
	if (d)
		scr_free(&x, d, n);
	free(d);
	return rc;
}

int st_screen_width(void)
{
	const char *c = getenv("COLUMNS");
	char *end;
	long v = c ? strtol(c, &end, 10) : 0;
	if (c && *c && !*end)
		return v >= 40 && v < ST_SCREEN_WIDTH ? (int)v : ST_SCREEN_WIDTH;
	/* a shell keeps COLUMNS to itself: the terminal says its width */
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 &&
	    ws.ws_col < ST_SCREEN_WIDTH)
		return ws.ws_col;
	return ST_SCREEN_WIDTH;
}
