#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check kmemflight flame's speedscope JSON against speedscope's own file
format schema (from its npm package, fetched by qemu-tests/deps.sh), with
Debian's python3-jsonschema, and print its samples as folded stacks: the
same lines as kmemflight flame's folded output if the two say the same.

  jsoncheck.py SCHEMA FILE.json
"""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    # the schema's definitions, with the file's format as the root
    root = dict(schema)
    root["$ref"] = "#/definitions/FileFormat.File"
    jsonschema.validate(doc, root)
    frames = [f["name"] for f in doc["shared"]["frames"]]
    if len(doc["profiles"]) != 1:
        sys.exit("jsoncheck: %d profiles, not 1" % len(doc["profiles"]))
    p = doc["profiles"][0]
    if p["type"] != "sampled" or p["unit"] != "bytes":
        sys.exit("jsoncheck: a %s profile in %s" % (p["type"], p["unit"]))
    if len(p["samples"]) != len(p["weights"]):
        sys.exit("jsoncheck: %d samples, %d weights" % (len(p["samples"]), len(p["weights"])))
    if p["startValue"] != 0 or p["endValue"] != sum(p["weights"]):
        sys.exit("jsoncheck: values %s to %s, weights add up to %d" %
                 (p["startValue"], p["endValue"], sum(p["weights"])))
    for s, w in zip(p["samples"], p["weights"]):
        print("%s %d" % (";".join(frames[i] for i in s), w))


main()
