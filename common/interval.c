/*
 * interval.c - throughput over time (see interval.h).
 */
#include "interval.h"

#include <string.h>

void st_iv_init(struct st_iv_series *s, int64_t origin_ns, int64_t width_ns)
{
	memset(s, 0, sizeof(*s));
	s->origin_ns = origin_ns;
	s->width_ns = width_ns > 0 ? width_ns : 1;
}

void st_iv_widen(struct st_iv_series *s, int64_t width)
{
	if (width <= s->width_ns)
		return;
	uint64_t f = (uint64_t)(width / s->width_ns);
	uint32_t n = (uint32_t)((s->n + f - 1) / f);
	for (uint32_t k = 0; k < n; k++) {
		struct st_iv_slot sum = { 0, 0, 0, 0 };
		for (uint64_t i = k * f; i < (k + 1) * f && i < s->n; i++) {
			sum.bytes += s->s[i].bytes;
			sum.ops += s->s[i].ops;
			sum.read_bytes += s->s[i].read_bytes;
			sum.read_ops += s->s[i].read_ops;
		}
		s->s[k] = sum;
	}
	memset(&s->s[n], 0, (ST_IV_SLOTS - n) * sizeof(s->s[0]));
	s->n = n;
	s->width_ns = width;
}

void st_iv_add(struct st_iv_series *s, int64_t end_ns, uint64_t bytes, int read)
{
	int64_t d = end_ns > s->origin_ns ? end_ns - s->origin_ns : 0;
	uint64_t idx = (uint64_t)(d / s->width_ns);
	while (idx >= ST_IV_SLOTS) {
		st_iv_widen(s, s->width_ns * 10);
		idx = (uint64_t)(d / s->width_ns);
	}
	struct st_iv_slot *x = &s->s[idx];
	x->bytes += bytes;
	x->ops++;
	if (read) {
		x->read_bytes += bytes;
		x->read_ops++;
	}
	if (idx + 1 > s->n)
		s->n = (uint32_t)idx + 1;
}

void st_iv_merge(struct st_iv_series *into, struct st_iv_series *from)
{
	if (from->width_ns > into->width_ns)
		st_iv_widen(into, from->width_ns);
	else
		st_iv_widen(from, into->width_ns);
	for (uint32_t i = 0; i < from->n; i++) {
		into->s[i].bytes += from->s[i].bytes;
		into->s[i].ops += from->s[i].ops;
		into->s[i].read_bytes += from->s[i].read_bytes;
		into->s[i].read_ops += from->s[i].read_ops;
	}
	if (from->n > into->n)
		into->n = from->n;
}

size_t st_iv_normalize(struct st_interval *v, size_t n)
{
	int64_t widest = 1;
	for (size_t i = 0; i < n; i++)
		if (v[i].width_ns > widest)
			widest = v[i].width_ns;
	/* each input gives at most one output, so out <= i: in place is safe */
	size_t out = 0;
	for (size_t i = 0; i < n;) {
		int32_t rank = v[i].rank;
		int64_t w = v[i].width_ns > 0 ? v[i].width_ns : widest;
		uint64_t f = (uint64_t)(widest / w);
		int64_t origin = v[i].t_ns - (int64_t)v[i].idx * w;
		size_t first = out;
		for (; i < n && v[i].rank == rank; i++) {
			struct st_interval x = v[i];
			uint32_t idx = (uint32_t)(x.idx / f);
			if (out > first && v[out - 1].idx == idx) {
				struct st_interval *o = &v[out - 1];
				o->bytes += x.bytes;
				o->ops += x.ops;
				o->read_bytes += x.read_bytes;
				o->read_ops += x.read_ops;
				if (x.end_ns > o->end_ns)
					o->end_ns = x.end_ns;
				continue;
			}
			x.idx = idx;
			x.t_ns = origin + (int64_t)idx * widest;
			x.width_ns = widest;
			v[out++] = x;
		}
	}
	/* an interval ends at its width, or earlier at the rank's last call */
	for (size_t k = 0; k < out; k++) {
		if (v[k].end_ns > v[k].t_ns + v[k].width_ns)
			v[k].end_ns = v[k].t_ns + v[k].width_ns;
		if (v[k].end_ns < v[k].t_ns)
			v[k].end_ns = v[k].t_ns;
	}
	return out;
}
