/*
 * test_report_browser.c - every scenario's report (every scenarios/NAME.json, plus a
 * scenario with hostile names) rendered in headless Chromium, the way a
 * reviewer opens it: no console messages, no resource fetched, no script
 * of the page's own, every chart's SVG laid out with a non-zero size, user
 * text shown as text; and the page printed to PDF (--pdf).
 *
 * The page is measured through a copy with two scripts injected (an
 * alert() trap first in <head>, a measuring script last in <body>) that
 * writes what it found into a hidden <pre>; Chromium's --dump-dom returns
 * it. Screenshots (1280 x 2000) and the reports themselves are kept under
 * BUILD/test-artifacts/report/ (BUILD = build or build/san) for people to
 * look at.
 *
 * Needs Chromium (Debian package chromium; `make deps-test` installs it, CI
 * runs with it). Without it the test says so and checks nothing.
 */
#include "harness.h"
#include "report.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define HOSTILE_SCENARIO                                                                         \
	"{\"name\": \"<script>alert(1)</script>\",\n"                                            \
	" \"description\": \"<img src=x onerror=alert(2)> & \\\"quoted\\\" 'q'\",\n"             \
	" \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096},\n"                       \
	" \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 1e10},\n" \
	" \"parallel\": {\"zero_stage\": 1},\n"                                                  \
	" \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},\n"                              \
	" \"costs\": {\"work\": {\"type\": \"run\"}, \"uncertainty\": {\"draws\": 300, \"seed\": 3},\n" \
	"  \"options\": [\n"                                                                     \
	"   {\"name\": \"<b>bold</b>&\\\"'\", \"kind\": \"rent\", \"provider\": \"lambda_8x\", \"tier\": \"on_demand\"},\n" \
	"   {\"name\": \"=HYPERLINK(\\\"http://x\\\")\", \"kind\": \"build\"}]}}\n"

static const char trap[] =
	"<script>window.__ppAlerts=0;window.alert=window.confirm=window.prompt="
	"function(){window.__ppAlerts++;};</script>";

static const char measure[] =
	"<script>(function(){var L=['begin'];"
	"document.querySelectorAll('svg.chart').forEach(function(s){var r=s.getBoundingClientRect();"
	"L.push('svg '+s.id+' '+Math.round(r.width)+' '+Math.round(r.height));});"
	"document.querySelectorAll('figure').forEach(function(f){"
	"L.push('figure '+f.id+' '+f.querySelectorAll('svg.chart').length);});"
	"L.push('resources '+performance.getEntriesByType('resource').length);"
	"L.push('scripts '+document.scripts.length);"
	"L.push('alerts '+window.__ppAlerts);"
	"var h=document.querySelector('header');"
	"L.push('header-literal '+(h&&h.textContent.indexOf('<script>alert(1)<\\/script>')>=0?1:0));"
	"L.push('title-literal '+(document.title.indexOf('<script>alert(1)<\\/script>')>=0?1:0));"
	"var s=0;document.querySelectorAll('svg.chart text').forEach(function(t){"
	"if(t.textContent.indexOf('<b>bold</b>&\"\\'')>=0)s=1;});L.push('svg-literal '+s);"
	"L.push('bold-elements '+document.querySelectorAll('main b b, svg b').length);"
	"L.push('height '+document.documentElement.scrollHeight);"
	"L.push('end');"
	"var p=document.createElement('pre');p.id='pp-measure';p.style.display='none';"
	"p.textContent=L.join('\\n');document.body.appendChild(p);})();</script>";

static char chromium[PATH_MAX];
static char art[PATH_MAX];

typedef struct page {
	char name[128];
	char scenario[PATH_MAX];
	bool cost;
	bool serving;   /* an inference work with a "serving" section: two more charts */
	bool cluster;   /* utilisation from a cluster simulation: its three charts */
	bool hostile;
} page;

static page pages[64];
static int npages;

static char *slurp(const char *path)
{
	char *t = NULL;
	size_t n;
	pp_err err = {0};
	if (pp_read_file(path, (size_t)64 << 20, &t, &n, &err))
		return NULL;
	return t;
}

static int cmp_page(const void *a, const void *b)
{
	return strcmp(((const page *)a)->name, ((const page *)b)->name);
}

static void find_pages(void)
{
	DIR *d = opendir("scenarios");
	struct dirent *e;
	while (d && (e = readdir(d)) && npages < 63) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		page *p = &pages[npages++];
		snprintf(p->name, sizeof(p->name), "%.*s", (int)(l - 5), e->d_name);
		snprintf(p->scenario, sizeof(p->scenario), "scenarios/%s", e->d_name);
		char *t = slurp(p->scenario);
		p->cost = t && strstr(t, "\"costs\"");
		p->serving = p->cost && strstr(t, "\"serving\"") && strstr(t, "\"inference\"");
		p->cluster = p->cost && strstr(t, "\"utilization_from\"");
		free(t);
	}
	if (d)
		closedir(d);
	qsort(pages, (size_t)npages, sizeof(page), cmp_page);
	page *h = &pages[npages++];
	snprintf(h->name, sizeof(h->name), "zz-hostile-names");
	snprintf(h->scenario, sizeof(h->scenario), "%s/hostile.json", pp_t_tmpdir());
	h->cost = true;
	h->hostile = true;
	pp_err err = {0};
	CHECK(pp_write_file_atomic(h->scenario, HOSTILE_SCENARIO, strlen(HOSTILE_SCENARIO), &err) == 0);
}

/* index.html with the trap after <head> and the measuring script before </body> */
static int instrument(const char *in, const char *out)
{
	char *t = slurp(in);
	if (!t)
		return -1;
	char *h = strstr(t, "<head>"), *b = strstr(t, "</body>");
	if (!h || !b)
		return free(t), -1;
	pp_sb o = {0};
	pp_sb_add(&o, t, (size_t)(h - t) + 6);
	pp_sb_adds(&o, trap);
	pp_sb_add(&o, h + 6, (size_t)(b - h - 6));
	pp_sb_adds(&o, measure);
	pp_sb_adds(&o, b);
	pp_err err = {0};
	int rc = pp_write_file_atomic(out, o.buf, o.len, &err);
	pp_sb_release(&o);
	free(t);
	return rc;
}

static long field(const char *dom, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), "\n%s ", key);
	const char *p = strstr(dom, k);
	return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

static const char *find_bytes(const char *hay, size_t n, const char *needle)
{
	size_t l = strlen(needle);
	for (size_t i = 0; l <= n && i + l <= n; i++)
		if (!memcmp(hay + i, needle, l))
			return hay + i;
	return NULL;
}

static bool png_size(const char *path, long *w, long *h, long *bytes)
{
	FILE *f = fopen(path, "rb");
	unsigned char b[24];
	bool ok = f && fread(b, 1, 24, f) == 24 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8) &&
		  !memcmp(b + 12, "IHDR", 4);
	if (ok) {
		*w = (long)b[16] << 24 | (long)b[17] << 16 | (long)b[18] << 8 | b[19];
		*h = (long)b[20] << 24 | (long)b[21] << 16 | (long)b[22] << 8 | b[23];
		fseek(f, 0, SEEK_END);
		*bytes = ftell(f);
	}
	if (f)
		fclose(f);
	return ok;
}

static void test_render_all(void)
{
	const char *t = pp_t_tmpdir(), *bin = pp_t_bin();
	char cmd[8192], *out = NULL;
	/* the reports, through the CLI, with a pinned timestamp */
	double t0 = pp_mono_s();
	for (int i = 0; i < npages; i++) {
		snprintf(cmd, sizeof(cmd), "SOURCE_DATE_EPOCH=1764547200 %s report '%s' -o '%s/%s' --db '%s/b.db'",
			 bin, pages[i].scenario, art, pages[i].name, t);
		int st = pp_t_sh(cmd, &out);
		if (st != 0)
			pp_t_diag("%s: exit %d: %s", pages[i].name, st, out);
		CHECK(st == 0);
		free(out);
		char in[PATH_MAX + 200], ck[PATH_MAX + 200];
		snprintf(in, sizeof(in), "%s/%s/index.html", art, pages[i].name);
		snprintf(ck, sizeof(ck), "%s/%s.check.html", t, pages[i].name);
		CHECK(instrument(in, ck) == 0);
		char *page_text = slurp(in);
		CHECK(page_text && !strstr(page_text, "<script")); /* the page itself has none */
		free(page_text);
	}
	double t1 = pp_mono_s();
	/* Chromium, four pages at a time */
	pp_sb sh = {0};
	pp_sb_addf(&sh, "cd '%s' && printf '%%s\\n'", t);
	for (int i = 0; i < npages; i++)
		pp_sb_addf(&sh, " '%s'", pages[i].name);
	pp_sb_addf(&sh, " | xargs -P 4 -I{} sh -c \"'%s' --headless --no-sandbox --disable-gpu "
		   "--disable-quic --no-first-run --disable-background-networking "
		   "--disable-component-update --disable-sync --disable-extensions "
		   "--user-data-dir=\\$(mktemp -d '%s/prof.XXXXXX') --enable-logging=stderr --v=0 "
		   "--window-size=1280,2000 --screenshot='%s/{}.png' --dump-dom "
		   "'file://%s/{}.check.html' > '{}.dom' 2> '{}.log'\"", chromium, t, art, t);
	int st = pp_t_sh(sh.buf, &out);
	CHECK(st == 0);
	if (st)
		pp_t_diag("chromium: %s", out);
	free(out);
	pp_sb_release(&sh);
	double t2 = pp_mono_s();
	pp_t_diag("%d reports in %.2f s, rendered in Chromium in %.2f s (4 at a time)", npages, t1 - t0,
	          t2 - t1);
	pp_t_diag("%-52s %6s %5s %6s %9s  %s", "page", "charts", "min w", "min h", "height", "screenshot");
	for (int i = 0; i < npages; i++) {
		const page *p = &pages[i];
		char path[PATH_MAX + 200];
		snprintf(path, sizeof(path), "%s/%s.dom", t, p->name);
		char *dom = slurp(path);
		snprintf(path, sizeof(path), "%s/%s.log", t, p->name);
		char *log = slurp(path);
		CHECK(dom && strstr(dom, "id=\"pp-measure\""));
		if (!dom || !strstr(dom, "id=\"pp-measure\"")) {
			const char *c = log ? strstr(log, "CONSOLE") : NULL;
			pp_t_diag("%s: no measurement (dom %zu bytes; console: %.600s)", p->name,
			          dom ? strlen(dom) : 0, c ? c : "none");
			free(dom);
			free(log);
			continue;
		}
		const char *m = strstr(dom, "id=\"pp-measure\"");
		CHECK(strstr(m, "\nend") != NULL);
		/* no console message of any level, no uncaught error */
		CHECK(log && !strstr(log, "CONSOLE") && !strstr(log, "Uncaught"));
		if (log && strstr(log, "CONSOLE"))
			pp_t_diag("%s: console: %.300s", p->name, strstr(log, "CONSOLE"));
		/* nothing fetched, no script but the two injected, no alert */
		CHECK(field(m, "resources") == 0);
		CHECK(field(m, "scripts") == 2);
		CHECK(field(m, "alerts") == 0);
		/* the charts: the expected ones, each in its figure, laid out */
		static const char *const cost_ids[] = {"chart-cost", "chart-tradeoff", "chart-cumulative",
						       "chart-tornado", "chart-distribution", "chart-steptime",
						       "chart-serving-ttft", "chart-serving-tpot"};
		static const char *const pred_ids[] = {"chart-steptime", "chart-memory"};
		static const char *const cluster_ids[] = {"chart-cluster-allocation",
							  "chart-cluster-queue", "chart-cluster-goodput"};
		const char *const *ids = p->cost ? cost_ids : pred_ids;
		int nids = p->cost ? 6 + 2 * p->serving : 2, found = 0;
		long minw = 1L << 30, minh = 1L << 30;
		for (const char *q = m; (q = strstr(q, "\nsvg ")) != NULL; q++) {
			char id[64];
			long w = 0, h = 0;
			if (sscanf(q + 5, "%63s %ld %ld", id, &w, &h) != 3)
				break;
			bool known = false;
			for (int k = 0; k < nids; k++)
				known |= !strcmp(id, ids[k]);
			for (int k = 0; p->cluster && k < 3; k++)
				known |= !strcmp(id, cluster_ids[k]);
			CHECK(known);
			CHECK(w >= 300 && h >= 60);
			minw = w < minw ? w : minw;
			minh = h < minh ? h : minh;
			found++;
		}
		CHECK(found == nids + (p->cluster ? 3 : 0));
		for (const char *q = m; (q = strstr(q, "\nfigure ")); q++) {
			char id[64];
			long nsvg = 0;
			if (sscanf(q + 8, "%63s %ld", id, &nsvg) == 2)
				CHECK(nsvg == 1);
		}
		if (p->hostile) {
			/* user text shown as text, in the header, the title and SVG text */
			CHECK(field(m, "header-literal") == 1);
			CHECK(field(m, "title-literal") == 1);
			CHECK(field(m, "svg-literal") == 1);
		}
		long w = 0, h = 0, bytes = 0;
		snprintf(path, sizeof(path), "%s/%s.png", art, p->name);
		CHECK(png_size(path, &w, &h, &bytes) && w == 1280 && h == 2000 && bytes > 20000);
		pp_t_diag("%-52.52s %6d %5ld %6ld %9ld  %s (%ld KB)", p->name, found, minw, minh,
		          field(m, "height"), path, bytes / 1024);
		free(dom);
		free(log);
	}
}

static void test_pdf(void)
{
	const char *bin = pp_t_bin();
	char cmd[4096], *out = NULL, dir[PATH_MAX + 100];
	const page *p = NULL;
	for (int i = 0; i < npages; i++)
		if (pages[i].cost && !pages[i].hostile && (!p || strstr(pages[i].name, "llama70b")))
			p = &pages[i];
	if (!p) {
		CHECK(!"a cost scenario to print");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/%s-pdf", art, p->name);
	double t0 = pp_mono_s();
	snprintf(cmd, sizeof(cmd), "SOURCE_DATE_EPOCH=1764547200 PODPLAN_CHROMIUM='%s' %s report '%s' -o '%s' "
		 "--db '%s/b.db' --pdf", chromium, bin, p->scenario, dir, pp_t_tmpdir());
	int st = pp_t_sh(cmd, &out);
	if (st)
		pp_t_diag("%s", out);
	CHECK(st == 0);
	free(out);
	char path[PATH_MAX + 200];
	snprintf(path, sizeof(path), "%s/report.pdf", dir);
	char *pdf = NULL;
	size_t n = 0;
	pp_err err = {0};
	CHECK(pp_read_file(path, (size_t)64 << 20, &pdf, &n, &err) == 0);
	if (!pdf)
		return;
	CHECK(n > 20000 && !memcmp(pdf, "%PDF", 4));
	/* pages: "/Type /Page" objects, not the "/Pages" tree */
	int pagesn = 0;
	for (const char *q = pdf; (q = find_bytes(q, n - (size_t)(q - pdf), "/Type /Page")); q += 11)
		if (q[11] != 's')
			pagesn++;
	CHECK(pagesn >= 3);
	/* the paper: US Letter (612 x 792 pt) or A4 (595 x 842 pt) */
	const char *mb = find_bytes(pdf, n, "/MediaBox [");
	double x0 = -1, y0 = -1, w = 0, h = 0;
	if (mb)
		sscanf(mb + 11, "%lf %lf %lf %lf", &x0, &y0, &w, &h);
	CHECK((w > 611 && w < 613 && h > 791 && h < 793) || (w > 594 && w < 596 && h > 841 && h < 843));
	pp_t_diag("%s: %d pages of %.0f x %.0f pt, %zu KB, in %.2f s", path, pagesn, w, h, n / 1024,
	          pp_mono_s() - t0);
	free(pdf);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (!pp_report_find_chromium(chromium, sizeof(chromium))) {
		pp_t_skip_all("no headless Chromium (install the Debian package chromium - make "
			      "deps-test does - or set PODPLAN_CHROMIUM)");
	}
	/* BUILD/tests/test_report_browser -> BUILD/test-artifacts/report */
	char self[PATH_MAX], *d1, *d2;
	snprintf(self, sizeof(self), "%s", argv[0]);
	d1 = dirname(self);
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", d1);
	d2 = dirname(tmp);
	char rel[PATH_MAX + 40];
	snprintf(rel, sizeof(rel), "%s/test-artifacts/report", d2);
	pp_err err = {0};
	if (pp_mkdirs(rel, &err) || !realpath(rel, art)) {
		pp_t_diag("cannot create %s: %s", rel, err.msg);
		return 1;
	}
	find_pages();
	RUN(test_render_all);
	RUN(test_pdf);
	return pp_t_done("test_report_browser");
}
