/* trace.c - see trace.h. */
#include "engine/trace.h"
#include "engine/evgraph.h"
#include "core/jsonout.h"
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
		snprintf(buf, n, "%c%d%s c%d", g.cat == PP_CAT_FWD ? 'F'
						: (g.act & 3) == PP_ACT_I ? 'I'
						: (g.act & 3) == PP_ACT_W ? 'W' : 'B',
			 g.mb, layer, g.chunk);
	else if (g.mb >= 0)
		snprintf(buf, n, "%s mb%d", what, g.mb);
	else
		snprintf(buf, n, "%s%s", what, layer);
}

/* One trace event, printed compactly through cJSON onto the trace. */
static void event(pp_sb *s, cJSON *e, bool *first)
{
	pp_sb_adds(s, *first ? "" : ",\n");
	pp_json_print(e, false, s);
	cJSON_Delete(e);
	*first = false;
}

static cJSON *meta(const char *name, int pid, int tid)
{
	cJSON *e = pp_json_obj(NULL, NULL);
	pp_json_str(e, "name", name);
	pp_json_str(e, "ph", "M");
	pp_json_int(e, "pid", pid);
	if (tid >= 0)
		pp_json_int(e, "tid", tid);
	return e;
}

void pp_trace_capture(pp_trace *t, const pp_des *d, const char *title)
{
	pp_sb *s = &t->json;
	s->len = 0;
	cJSON *other = pp_json_obj(NULL, NULL);
	pp_json_str(other, "generator", "podplan " PP_VERSION);
	pp_json_str(other, "scenario", title);
	pp_sb_adds(s, "{\"displayTimeUnit\":\"ms\",\"otherData\":");
	pp_json_print(other, false, s);
	cJSON_Delete(other);
	pp_sb_adds(s, ",\"traceEvents\":[\n");
	int nr = pp_des_nresources(d);
	bool first = true;
	int maxrank = -1;
	for (int r = 0; r < nr; r++)
		if (pp_des_resource_rank(d, r) > maxrank)
			maxrank = pp_des_resource_rank(d, r);
	for (int p = 0; p <= maxrank; p++) {
		/* a process is a pipeline stage, unless it holds only shared
		 * resources (the storage the checkpoint and data reads share) */
		bool stage = false;
		const char *shared = NULL;
		for (int r = 0; r < nr; r++)
			if (pp_des_resource_rank(d, r) == p) {
				if (strcmp(pp_des_resource_name(d, r), "storage") == 0)
					shared = "storage";
				else
					stage = true;
			}
		char name[32];
		if (stage || !shared)
			snprintf(name, sizeof(name), "stage %d", p);
		else
			snprintf(name, sizeof(name), "%s", shared);
		cJSON *e = meta("process_name", p, -1);
		pp_json_str(pp_json_obj(e, "args"), "name", name);
		event(s, e, &first);
		e = meta("process_sort_index", p, -1);
		pp_json_int(pp_json_obj(e, "args"), "sort_index", p);
		event(s, e, &first);
	}
	for (int r = 0; r < nr; r++) {
		cJSON *e = meta("thread_name", pp_des_resource_rank(d, r), r);
		pp_json_str(pp_json_obj(e, "args"), "name", pp_des_resource_name(d, r));
		event(s, e, &first);
	}
	int n = pp_des_ntasks(d);
	for (int i = 0; i < n; i++) {
		if (pp_des_dur(d, i) <= 0)
			continue;
		pp_des_tag g = pp_des_task_tag(d, i);
		char name[96];
		task_name(name, sizeof(name), g);
		int r = pp_des_task_resource(d, i);
		cJSON *e = pp_json_obj(NULL, NULL);
		pp_json_str(e, "name", name);
		pp_json_str(e, "cat", g.cat < PP_CAT_COUNT ? pp_cat_names[g.cat] : "task");
		pp_json_str(e, "ph", "X");
		/* microseconds, to the nanosecond the simulation keeps */
		pp_json_num(e, "ts", pp_des_start(d, i) / 1e3, 15);
		pp_json_num(e, "dur", pp_des_dur(d, i) / 1e3, 15);
		pp_json_int(e, "pid", pp_des_resource_rank(d, r));
		pp_json_int(e, "tid", r);
		cJSON *args = pp_json_obj(e, "args");
		pp_json_int(args, "microbatch", g.mb);
		pp_json_int(args, "chunk", g.chunk);
		pp_json_int(args, "layer", g.layer);
		event(s, e, &first);
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
