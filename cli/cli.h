/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMF_CLI_H
#define KMF_CLI_H

#include <stdbool.h>

/* Exit codes, the same for every subcommand. */
#define KMF_EXIT_OK	0
#define KMF_EXIT_FAIL	1
#define KMF_EXIT_USAGE	2

struct kmf_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

extern const char *kmf_cmd_name;
/* The process's own argv[0], for the attach daemon to mark itself. */
extern char *kmf_argv0;

void kmf_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kmf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "usage error" and a hint to --help; returns KMF_EXIT_USAGE. */
/* Once per text: what the source of a non-recorder trace could not see. */
struct kmt_trace;
void kmf_note_coverage(const struct kmt_trace *t);
/*
 * After the output of a trace opened with KMT_OPEN_TRUNCATED: if the file
 * is cut, a warning that says where and what is missing.  true if so
 * (the command then exits 1).
 */
bool kmf_warn_cut(const char *path, const struct kmt_trace *t);
int kmf_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* getopt's '?': @opt its optopt, @arg the word it stopped at. */
/*
 * The usage error for what getopt_long() refused, @word being the
 * argument it was in (argv[optind - 1]) and @opt its optopt: an unknown
 * option, one that needs a value and has none, or one given a value it
 * takes none; @valid, when not NULL, lists the valid ones.  Exit 2.
 */
struct option;
int kmf_option_error(const struct option *lo, const char *shortopts, int opt,
		     const char *word, const char *valid);

int cmd_attach(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_import(int argc, char **argv);

#endif
