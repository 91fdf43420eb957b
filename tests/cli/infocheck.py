#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that kmemflight info --json says what kmemflight info says: read
the text's lines back into the members of the JSON document and compare
them, member by member, and that the document has every member and no
other.  Prints the members that differ; exit 1 if any.

  infocheck.py INFO.txt INFO.json
"""
import json
import re
import sys

MEMBERS = ["kmemflight_info", "file", "file_bytes", "header_file_bytes", "byte_order", "release",
           "build_id", "cmdline", "saved_at", "previous_boot", "source",
           "ftrace", "attach", "addresses", "recorder", "groups", "buffers",
           "meminfo", "tasks", "mode", "frozen", "caches", "nodes", "symbols",
           "first_ns", "last_ns", "span_ns", "cpus", "total",
           "bytes_per_event"]


def ns(s):
    """ "1.000000100" (s): ns; fewer decimals are the ns truncated """
    whole, frac = s.split(".")
    return int(whole) * 10**9 + int(frac.ljust(9, "0"))


def cut(v, decimals):
    """ns truncated as the text shows them, with this many decimals of s"""
    unit = 10**(9 - decimals)
    return None if v is None else v // unit * unit


def from_text(lines, doc):
    """The document the text describes; where the text has less precision
    than the document (us), the document's value cut to it."""
    d = {m: None for m in MEMBERS}
    d.update(kmemflight_info=1, previous_boot=False, addresses="absolute")
    d["cpus"] = []
    fields = {}
    table = False
    flight_cols = False
    for line in lines:
        if table:
            col = line.split()
            if col[0] == "total":
                tot = {"kernel": int(col[1]), "in_file": int(col[2]),
                       "lost": int(col[3]), "overwritten": None,
                       "frozen_dropped": None}
                if flight_cols:
                    tot.update(overwritten=int(col[4]), frozen_dropped=int(col[5]))
                d["total"] = tot
                table = False
                continue
            row = {"cpu": int(col[0]), "node": int(col[1]),
                   "subbufs": int(col[2]), "kernel": int(col[3]),
                   "in_file": int(col[4]), "lost": int(col[5]),
                   "overwritten": None, "frozen_dropped": None,
                   "window_start_ns": None, "window_end_ns": None}
            if flight_cols:
                row.update(overwritten=int(col[6]), frozen_dropped=int(col[7]))
                if col[8] != "-":
                    a, b = col[8].split("-")
                    j = doc["cpus"][len(d["cpus"])]
                    row.update(window_start_ns=ns(a), window_end_ns=ns(b))
                    # the text has us: the document's ns, cut
                    j = dict(j, window_start_ns=cut(j["window_start_ns"], 6),
                             window_end_ns=cut(j["window_end_ns"], 6))
                    doc["cpus"][len(d["cpus"])] = j
            d["cpus"].append(row)
            continue
        if line.startswith("cpu "):
            table = True
            flight_cols = "overwritten" in line
            continue
        m = re.match(r"([a-z/-]+): +(.*)$", line)
        if not m:
            sys.exit("infocheck: a line not understood: %r" % line)
        fields[m.group(1)] = m.group(2)

    m = re.match(r"(.*) \((\d+) bytes, (?:cut: its header says (\d+); )?(native|foreign) byte order\)$",
                 fields.pop("file"))
    d.update(file=m.group(1), file_bytes=int(m.group(2)),
             header_file_bytes=int(m.group(3)) if m.group(3) else None, byte_order=m.group(4))
    for key, member in (("release", "release"), ("cmdline", "cmdline"),
                        ("attach", "attach")):
        if key in fields:
            d[member] = fields.pop(key)
    if "build-id" in fields:
        v = fields.pop("build-id")
        d["build_id"] = "" if v == "(none)" else v
    if "saved" in fields:
        v = fields.pop("saved")
        tail = ", by the boot after the one recorded (save --previous)"
        d["previous_boot"] = v.endswith(tail)
        d["saved_at"] = v[:-len(tail)] if d["previous_boot"] else v
    if "source" in fields:
        v = fields.pop("source")
        m = re.match(r"ftrace, (top instance|instance (.*)), (overwrite|nooverwrite) mode; events: (.*)$", v)
        if m:
            ev = m.group(4)
            d["source"] = "ftrace"
            d["ftrace"] = {"instance": m.group(2) or "",
                           "overwrite": m.group(3) == "overwrite",
                           "events": "" if ev == "(none enabled at save)" else ev}
        else:
            d["source"] = v
    if "addresses" in fields:
        fields.pop("addresses")
        d["addresses"] = "relative"
    m = re.match(r"ABI (\d+), (\d+)-bit, (\d+) x (\d+)-byte sub-buffers (in one pool for all CPUs|per CPU), clock (.*)$",
                 fields.pop("recorder"))
    d["recorder"] = {"abi": int(m.group(1)), "word_bits": int(m.group(2)),
                     "subbufs": int(m.group(3)), "subbuf_size": int(m.group(4)),
                     "pool": m.group(5) != "per CPU", "clock": m.group(6)}
    if "groups" in fields:
        v = fields.pop("groups")[:-len(" (kmemtrace.events=)")]
        d["groups"] = [] if v == "none" else v.split(",")
    if "buffers" in fields:
        v = fields.pop("buffers")
        b = {"kind": None, "bytes": None, "held_bytes": None, "cpus": None,
             "possible_cpus": None}
        m = re.match(r"(\d+) bytes in one pool in a reserve_mem= region", v)
        m2 = re.match(r"(\d+) bytes in one pool; after the save (\d+) of them held by (\d+) of (\d+) possible CPUs$", v)
        m3 = re.match(r"(\d+) bytes on (\d+) of (\d+) possible CPUs \(allocated as they came up\)$", v)
        if m:
            b.update(kind="region", bytes=int(m.group(1)))
        elif m2:
            b.update(kind="pool", bytes=int(m2.group(1)), held_bytes=int(m2.group(2)),
                     cpus=int(m2.group(3)), possible_cpus=int(m2.group(4)))
        else:
            b.update(kind="per_cpu", bytes=int(m3.group(1)), cpus=int(m3.group(2)),
                     possible_cpus=int(m3.group(3)))
        d["buffers"] = b
    if "meminfo" in fields:
        v = fields.pop("meminfo")
        m = re.match(r"MemTotal (\d+) bytes, MemFree (\d+) bytes at the save( \(and /proc/vmstat\))?$", v)
        d["meminfo"] = {"mem_total": int(m.group(1)), "mem_free": int(m.group(2)),
                        "vmstat": bool(m.group(3))}
    if "tasks" in fields:
        m = re.match(r"(\d+) tasks and (\d+) cgroups at the save$", fields.pop("tasks"))
        d["tasks"] = {"tasks": int(m.group(1)), "cgroups": int(m.group(2))}
    if "mode" in fields:
        d["mode"] = fields.pop("mode").split(" ")[0]
    if "frozen" in fields:
        v = fields.pop("frozen")
        if v != "no":
            m = re.match(r"by (\S+) at (\d+\.\d+) s, every CPU stopped (\d+) ns later$", v)
            d["frozen"] = {"by": m.group(1), "at_ns": ns(m.group(2)),
                           "stopped_after_ns": int(m.group(3))}
            if doc.get("frozen"):
                doc["frozen"] = dict(doc["frozen"], at_ns=cut(doc["frozen"]["at_ns"], 6))
    d["caches"] = int(fields.pop("caches"))
    d["nodes"] = int(fields.pop("nodes"))
    if "symbols" in fields:
        m = re.match(r"(\d+) text symbols, (\d+) bytes, (\d+) in the file( \(zstd\))?$",
                     fields.pop("symbols"))
        d["symbols"] = {"count": int(m.group(1)), "bytes": int(m.group(2)),
                        "stored_bytes": int(m.group(3)), "zstd": bool(m.group(4))}
    v = fields.pop("time")
    if v != "no events":
        m = re.match(r"(\d+\.\d{9}) s to (\d+\.\d{9}) s, a span of (\d+\.\d{9}) s$", v)
        d.update(first_ns=ns(m.group(1)), last_ns=ns(m.group(2)), span_ns=ns(m.group(3)))
    if "bytes/event" in fields:
        m = re.match(r"(\d+\.\d\d) \(sub-buffers\), (\d+\.\d\d) \(whole file\)$",
                     fields.pop("bytes/event"))
        d["bytes_per_event"] = {"subbufs": float(m.group(1)), "file": float(m.group(2))}
    if fields:
        sys.exit("infocheck: lines not read: %s" % sorted(fields))
    return d


def main():
    lines = open(sys.argv[1]).read().splitlines()
    doc = json.load(open(sys.argv[2]))
    if list(doc) != MEMBERS:
        sys.exit("infocheck: members %s, not %s" % (list(doc), MEMBERS))
    want = from_text(lines, doc)
    bad = 0
    for m in MEMBERS:
        if want[m] != doc[m]:
            print("%s: the text says %r, the JSON %r" % (m, want[m], doc[m]))
            bad = 1
    sys.exit(bad)


main()
