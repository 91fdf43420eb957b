// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight: record, save and analyse the kernel's boot-time memory.
 * One binary, git-style subcommands.
 */
#include <errno.h>
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "../lib/kmt.h"

const char *kmf_cmd_name = "kmemflight";
char *kmf_argv0;
/* an error or a usage error was printed: the command said why it failed */
static bool said_error;

static const struct kmf_cmd cmds[] = {
	{ "attach", cmd_attach, "drain the kernel recorder into a spool as it fills (boot-long)" },
	{ "save",   cmd_save,   "stop the kernel recorder and write its events to a file" },
	{ "watch",  cmd_watch,  "flight recorder: save the buffers whenever a trigger freezes them" },
	{ "report", cmd_report, "perf-kmem style tables from a saved trace" },
	{ "info",   cmd_info,   "what a saved trace holds: kernel, CPUs, events, losses" },
	{ "dump",   cmd_dump,   "print the raw events of a saved trace, one per line" },
	{ "plot",   cmd_plot,   "draw a trace's memory over time, by kind, phase and caller (SVG)" },
	{ "flame",  cmd_flame,  "a trace's footprint or allocations as stacks: folded, speedscope" },
	{ "diff",   cmd_diff,   "compare what two boots left allocated, check growth budgets" },
	{ "summary", cmd_summary, "what diff compares of a trace, small enough to commit" },
	{ "import", cmd_import, "turn a 'perf kmem record' perf.data into a trace file" },
};

static void vmsg(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", kmf_cmd_name, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void kmf_error(const char *fmt, ...)
{
	va_list ap;

	said_error = true;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void kmf_note_coverage(const struct kmt_trace *t)
{
	static char last[1024];
	char buf[1024];

	if (!kmt_trace_coverage(t, buf, sizeof(buf)) || !strcmp(buf, last))
		return;
	memcpy(last, buf, sizeof(last));
	fprintf(stderr, "%s: note: %s\n", kmf_cmd_name, buf);
}

void kmf_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

bool kmf_warn_cut(const char *path, const struct kmt_trace *t)
{
	char buf[512];

	if (!kmt_trace_cut_text(t, buf, sizeof(buf)))
		return false;
	kmf_warn("%s is %s", path, buf);
	return true;
}

int kmf_usage_error(const char *fmt, ...)
{
	va_list ap;

	said_error = true;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", kmf_cmd_name);
	return KMF_EXIT_USAGE;
}

int kmf_option_error(const struct option *lo, const char *shortopts, int opt,
		     const char *word, const char *valid)
{
	const struct option *hit = NULL;
	const char *name, *eq, *p;
	size_t n, i;

	if (word && !strncmp(word, "--", 2) && word[2]) {
		name = word + 2;
		eq = strchr(name, '=');
		n = eq ? (size_t)(eq - name) : strlen(name);
		/* the option getopt took it for: exact, or a unique prefix */
		for (i = 0; lo && lo[i].name; i++) {
			if (strncmp(lo[i].name, name, n))
				continue;
			if (strlen(lo[i].name) == n) {
				hit = &lo[i];
				break;
			}
			hit = hit ? (const struct option *)-1 : &lo[i];
		}
		if (hit && hit != (const struct option *)-1) {
			if (eq && hit->has_arg == no_argument)
				return kmf_usage_error("option '--%s' takes no value", hit->name);
			if (!eq && hit->has_arg == required_argument)
				return kmf_usage_error("option '--%s' needs a value", hit->name);
		}
		if (hit == (const struct option *)-1)
			return kmf_usage_error("option '--%.*s' is ambiguous%s%s%s", (int)n, name,
					       valid ? " (valid: " : "", valid ? valid : "",
					       valid ? ")" : "");
		return kmf_usage_error("unknown option '%.*s'%s%s%s", (int)(n + 2), word,
				       valid ? " (valid: " : "", valid ? valid : "",
				       valid ? ")" : "");
	}
	if (opt > 0 && opt < 128 && isgraph(opt)) {
		p = strchr(shortopts, opt);
		if (p && p[1] == ':')
			return kmf_usage_error("option '-%c' needs a value", opt);
		return kmf_usage_error("unknown option '-%c'%s%s%s", opt,
				       valid ? " (valid: " : "", valid ? valid : "",
				       valid ? ")" : "");
	}
	return kmf_usage_error("unknown option '%s'%s%s%s", word ? word : "?",
			       valid ? " (valid: " : "", valid ? valid : "",
			       valid ? ")" : "");
}

static void summary(FILE *f)
{
	size_t i;

	fprintf(f, "usage: kmemflight <command> [<options>] [<file>]\n\n");
	fprintf(f, "Boot-time kernel memory flight recorder.\n\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "   %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nRecord: boot with kmemtrace.enable=1, then 'kmemflight save boot.kmt'.\n");
	fprintf(f, "Analyse: 'kmemflight report --caller boot.kmt'.\n");
	fprintf(f, "Compare: 'kmemflight diff --max-growth 5%% base.kmt new.kmt'.\n");
	fprintf(f, "'kmemflight help <command>' for a command's options.\n");
}

/*
 * The commands print with stdio and check no printf: a full disk, a
 * closed pipe or a failed write of the last buffer shows here, once the
 * command has returned and stdout is flushed and closed.  A write error
 * makes a success a failure; a command that has said why it failed is
 * not given a second message.  A stdout closed by the caller (>&-) is no
 * error as long as nothing was written to it.
 */
static int close_stdout(int status)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout))
		err = errno ? errno : EIO;
	else if (ferror(stdout))
		err = -1;	/* an earlier write failed, its errno is gone */
	if (fclose(stdout) && !err && errno != EBADF)
		err = errno ? errno : EIO;
	if (!err)
		return status;
	if (!said_error)
		kmf_error("cannot write the output%s%s", err > 0 ? ": " : "",
			  err > 0 ? strerror(err) : "");
	return status == KMF_EXIT_OK ? KMF_EXIT_FAIL : status;
}

static const struct kmf_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

static int not_a_command(const char *name)
{
	fprintf(stderr, "kmemflight: '%s' is not a kmemflight command.\n\n", name);
	summary(stderr);
	return KMF_EXIT_USAGE;
}

/* Run @cmd under its own name: "kmemflight report" in its messages. */
static int run_cmd(const struct kmf_cmd *cmd, int argc, char **argv)
{
	static char name[64];

	snprintf(name, sizeof(name), "kmemflight %s", cmd->name);
	kmf_cmd_name = name;
	return close_stdout(cmd->fn(argc, argv));
}

/* "kmemflight help <command>": what "kmemflight <command> --help" prints. */
static int help(int argc, char **argv)
{
	static char opt[] = "--help";
	const struct kmf_cmd *cmd;
	char *args[3];

	if (argc > 3)
		return kmf_usage_error("help takes one command: 'kmemflight help <command>'");
	if (!strcmp(argv[2], "help")) {
		summary(stdout);
		return close_stdout(KMF_EXIT_OK);
	}
	cmd = find_cmd(argv[2]);
	if (!cmd)
		return not_a_command(argv[2]);
	args[0] = argv[2];
	args[1] = opt;
	args[2] = NULL;
	return run_cmd(cmd, 2, args);
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	const struct kmf_cmd *cmd;

	kmf_argv0 = argv[0];
	/*
	 * A buffer that holds a help text whole, so that close_stdout()'s
	 * flush meets a write error again and can say which one; a terminal
	 * keeps its line buffering.
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (argc < 2) {
		summary(stdout);
		return close_stdout(KMF_EXIT_OK);
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return help(argc, argv);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		summary(stdout);
		return close_stdout(KMF_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("kmemflight %s (trace file version %d, recorder ABI %d)\n",
		       KMT_VERSION, KMT_FILE_VERSION, KMT_ABI_VERSION);
		return close_stdout(KMF_EXIT_OK);
	}
	cmd = find_cmd(argv[1]);
	if (!cmd)
		return not_a_command(argv[1]);
	return run_cmd(cmd, argc - 1, argv + 1);
}
