/*
 * write.c - writing a report's files all-or-nothing (a staging directory
 * inside the output directory, then renames, index.html last), and
 * printing the page to PDF with headless Chromium.
 */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* rm -r of a directory this program created (no symlinks followed). */
static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = pp_path_join(path, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(p);
		else
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

const char *pp_report_find_chromium(char *buf, size_t n)
{
	const char *env = getenv("PODPLAN_CHROMIUM");
	if (env) {
		if (!*env || access(env, X_OK) != 0)
			return NULL;
		snprintf(buf, n, "%s", env);
		return buf;
	}
	static const char *const names[] = {"chromium", "chromium-browser", "google-chrome",
					    "google-chrome-stable"};
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (size_t i = 0; i < PP_ARRAY_LEN(names); i++) {
		const char *p = path;
		while (*p) {
			const char *c = strchr(p, ':');
			size_t l = c ? (size_t)(c - p) : strlen(p);
			if (l > 0) {
				snprintf(buf, n, "%.*s/%s", (int)l, p, names[i]);
				if (access(buf, X_OK) == 0)
					return buf;
			}
			p += l + (c ? 1 : 0);
		}
	}
	return NULL;
}

/* file:// URL of an absolute path, percent-encoding what a URL may not hold. */
static void file_url(const char *abs, pp_sb *out)
{
	pp_sb_adds(out, "file://");
	for (const unsigned char *p = (const unsigned char *)abs; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			pp_sb_add(out, (const char *)p, 1);
		else
			pp_sb_addf(out, "%%%02X", *p);
	}
}

int pp_report_print_pdf(const char *chromium, const char *html_path, const char *pdf_path,
			pp_err *err)
{
	char abs[PATH_MAX], prof[] = "/tmp/podplan-chromium.XXXXXX";
	pp_sb url = {0}, a_out = {0}, a_prof = {0};
	int rc = 0;
	if (!realpath(html_path, abs))
		return pp_errf(err, PP_EIO, "%s: %s", html_path, strerror(errno));
	if (!mkdtemp(prof))
		return pp_errf(err, PP_EIO, "cannot create a Chromium profile directory: %s",
			       strerror(errno));
	file_url(abs, &url);
	pp_sb_addf(&a_out, "--print-to-pdf=%s", pdf_path);
	pp_sb_addf(&a_prof, "--user-data-dir=%s", prof);
	char *argv[] = {(char *)chromium, "--headless", "--no-sandbox", "--disable-gpu",
			"--disable-quic", "--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--disable-extensions",
			"--no-pdf-header-footer", a_prof.buf, a_out.buf, url.buf, NULL};
	pid_t pid = fork();
	if (pid < 0) {
		rc = pp_errf(err, PP_EIO, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setpgid(0, 0);
		execv(chromium, argv);
		_exit(127);
	}
	/* Chromium prints a page in about a second; give it two minutes. */
	double t0 = pp_mono_s();
	int st = 0;
	pid_t w;
	while ((w = waitpid(pid, &st, WNOHANG)) == 0) {
		if (pp_mono_s() - t0 > 120) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			rc = pp_errf(err, PP_EIO, "%s did not print %s within 120 s", chromium, html_path);
			goto out;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		rc = pp_errf(err, PP_EIO, "%s --print-to-pdf failed (exit status %d)", chromium,
			     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		goto out;
	}
	char head[5] = "";
	FILE *f = fopen(pdf_path, "rb");
	if (!f || fread(head, 1, 4, f) != 4 || memcmp(head, "%PDF", 4)) {
		rc = pp_errf(err, PP_EIO, "%s: Chromium wrote no PDF", pdf_path);
	}
	if (f)
		fclose(f);
out:
	remove_tree(prof);
	pp_sb_release(&url);
	pp_sb_release(&a_out);
	pp_sb_release(&a_prof);
	return rc;
}

int pp_report_write(const pp_report *r, const char *dir, const char *pdf_cmd, pp_sb *names,
		    pp_err *err)
{
	pp_report_file files[PP_REPORT_MAX_FILES + 3];
	int n = 0, rc = 0;
	char *stage = NULL;
	/* everything rendered before anything is written */
	memset(files, 0, sizeof(files));
	n = pp_report_csv(r, files, PP_REPORT_MAX_FILES);
	snprintf(files[n].name, sizeof(files[n].name), "summary.md");
	pp_report_md(r, &files[n++].body);
	snprintf(files[n].name, sizeof(files[n].name), "index.html");
	pp_report_html(r, &files[n++].body);
	if ((rc = pp_mkdirs(dir, err)))
		goto out;
	char sname[64];
	snprintf(sname, sizeof(sname), ".podplan-staging.%ld", (long)getpid());
	stage = pp_path_join(dir, sname);
	remove_tree(stage);
	if (mkdir(stage, 0777) != 0) {
		rc = pp_errf(err, PP_EIO, "%s: cannot create: %s", stage, strerror(errno));
		free(stage);
		stage = NULL;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		char *p = pp_path_join(stage, files[i].name);
		rc = pp_write_file_atomic(p, files[i].body.buf ? files[i].body.buf : "", files[i].body.len,
					  err);
		free(p);
		if (rc)
			goto out;
	}
	if (pdf_cmd) {
		char *html = pp_path_join(stage, "index.html"), *pdf = pp_path_join(stage, "report.pdf");
		rc = pp_report_print_pdf(pdf_cmd, html, pdf, err);
		free(html);
		free(pdf);
		if (rc)
			goto out;
	}
	/* into place: the pdf and the CSV/MD files first, index.html last */
	for (int i = pdf_cmd ? -1 : 0; i < n; i++) {
		const char *name = i < 0 ? "report.pdf" : files[i].name;
		char *from = pp_path_join(stage, name), *to = pp_path_join(dir, name);
		int e = rename(from, to);
		if (e != 0)
			rc = pp_errf(err, PP_EIO, "%s: cannot move into place: %s", to, strerror(errno));
		free(from);
		free(to);
		if (rc)
			goto out;
		if (names) {
			pp_sb_adds(names, name);
			pp_sb_adds(names, "\n");
		}
	}
out:
	if (stage) {
		remove_tree(stage);
		free(stage);
	}
	for (int i = 0; i < n; i++)
		pp_sb_release(&files[i].body);
	return rc;
}
