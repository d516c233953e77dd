/* trace.c - see trace.h. */
#include "engine/trace.h"
#include "engine/schedule.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

struct pp_trace {
	pp_sb json;
};

pp_trace *pp_trace_new(void)
{
	return pp_xcalloc(1, sizeof(pp_trace));
}

void pp_trace_free(pp_trace *t)
{
	if (!t)
		return;
	pp_sb_release(&t->json);
	free(t);
}

static void task_name(char *buf, size_t n, pp_des_tag g)
{
	const char *what = g.cat < PP_CAT_COUNT ? pp_cat_names[g.cat] : "task";
	char layer[24] = "";
	if (g.layer == PP_LAYER_EMBED)
		snprintf(layer, sizeof(layer), " embedding");
	else if (g.layer == PP_LAYER_HEAD)
		snprintf(layer, sizeof(layer), " head+loss");
	else if (g.layer >= 0)
		snprintf(layer, sizeof(layer), " L%d", g.layer);
	if (g.cat == PP_CAT_FWD || g.cat == PP_CAT_BWD)
		snprintf(buf, n, "%c%d%s c%d", g.cat == PP_CAT_FWD ? 'F' : 'B', g.mb, layer, g.chunk);
	else if (g.mb >= 0)
		snprintf(buf, n, "%s mb%d", what, g.mb);
	else
		snprintf(buf, n, "%s%s", what, layer);
}

void pp_trace_capture(pp_trace *t, const pp_des *d, const char *title)
{
	pp_sb *s = &t->json;
	s->len = 0;
	pp_sb_adds(s, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"podplan " PP_VERSION
		      "\",\"scenario\":");
	pp_sb_add_json(s, title);
	pp_sb_adds(s, "},\"traceEvents\":[\n");
	int nr = pp_des_nresources(d);
	bool first = true;
	int maxrank = -1;
	for (int r = 0; r < nr; r++)
		if (pp_des_resource_rank(d, r) > maxrank)
			maxrank = pp_des_resource_rank(d, r);
	for (int p = 0; p <= maxrank; p++) {
		pp_sb_addf(s, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
			      "\"stage %d\"}}", first ? "" : ",\n", p, p);
		pp_sb_addf(s, ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":"
			      "{\"sort_index\":%d}}", p, p);
		first = false;
	}
	for (int r = 0; r < nr; r++) {
		pp_sb_addf(s, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			      "\"args\":{\"name\":", pp_des_resource_rank(d, r), r);
		pp_sb_add_json(s, pp_des_resource_name(d, r));
		pp_sb_adds(s, "}}");
	}
	int n = pp_des_ntasks(d);
	for (int i = 0; i < n; i++) {
		if (pp_des_dur(d, i) <= 0)
			continue;
		pp_des_tag g = pp_des_task_tag(d, i);
		char name[96];
		task_name(name, sizeof(name), g);
		int r = pp_des_task_resource(d, i);
		pp_sb_addf(s, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
			      "\"pid\":%d,\"tid\":%d,\"args\":{\"microbatch\":%d,\"chunk\":%d,\"layer\":%d}}",
			   name, g.cat < PP_CAT_COUNT ? pp_cat_names[g.cat] : "task",
			   pp_des_start(d, i) / 1e3, pp_des_dur(d, i) / 1e3, pp_des_resource_rank(d, r), r,
			   g.mb, g.chunk, g.layer);
	}
	pp_sb_adds(s, "\n]}\n");
}

const char *pp_trace_json(const pp_trace *t)
{
	return t->json.buf ? t->json.buf : "";
}

int pp_trace_write(const pp_trace *t, const char *path, pp_err *err)
{
	return pp_write_file_atomic(path, t->json.buf ? t->json.buf : "", t->json.len, err);
}
