#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gen-man.py owns the generation of weft's manual pages from the tables the
library itself is built from, so the pages cannot drift from the API:

  * which names a routine family has: name templates in pages.txt expanded
    over the type tables of include/weft/types.h (the X-macro tables, read
    through the C preprocessor, exactly as the compiler sees them);
  * each name's synopsis: its declaration in shmem.h / shmemx.h, taken from
    the preprocessed headers (so a typed routine's page shows the prototype
    the compiler uses);
  * which names exist: the routine list cmake/ProfilingInterface.cmake makes
    from the library's exported functions (a family name that is not a
    routine is an error; a routine no family lists is reported in
    unclaimed.txt, which the man.pages ctest turns into a failure);
  * weft(7): the tunables and their older names from src/core/tunables.def;
  * oshrun(1), weft-info(1): their own --help output.

Output: OUT/man1, OUT/man3, OUT/man7 with one page per family, and per
routine name NAME (and its profiling name pNAME) a one-line `.so` page that
makes `man NAME` show the family's page.

  gen-man.py --cc CC --include DIR [--include DIR]... --pages pages.txt --tunables tunables.def
             --routines LIST --version V --out DIR [--help-of NAME=PROGRAM]...
             [--emulator 'PROGRAM;ARG;...']
"""
import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
import time

SECTION_TITLES = {"1": "weft commands", "3": "OpenSHMEM library functions",
                  "7": "weft overview"}


def preprocess(cc, include, text):
    """Run the C preprocessor over `text` with weft's include directories."""
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        flags = [arg for d in include for arg in ("-I", d)]
        out = subprocess.run([cc, "-E", "-P", "-std=gnu11"] + flags + [path],
                             check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        sys.exit("gen-man.py: the preprocessor failed:\n" + e.stderr)
    finally:
        os.unlink(path)
    return out.stdout


def type_tables(cc, include, names):
    """The first column (TYPENAME or size) of each X-macro table in names."""
    probe = "#include <shmem.h>\n#define WEFT_MAN_ROW(N, ...) @ROW N @END\n"
    for t in sorted(names):
        probe += "@TABLE %s @END %s(WEFT_MAN_ROW)\n" % (t, t)
    tables, cur = {}, None
    for kind, value in re.findall(r"@(TABLE|ROW)\s+(\S+)\s+@END", preprocess(cc, include, probe)):
        if kind == "TABLE":
            cur = tables.setdefault(value, [])
        else:
            cur.append(value)
    for t in names:
        if not tables.get(t):
            sys.exit("gen-man.py: %s is not a type table of weft/types.h" % t)
    return tables


def declarations(cc, include):
    """name -> declaration text, for every function shmem.h/shmemx.h declare."""
    text = preprocess(cc, include, "#include <shmem.h>\n#include <shmemx.h>\n")
    text = re.sub(r"#pragma[^\n]*", "", text)
    decls = {}
    for stmt in text.replace("\n", " ").split(";"):
        stmt = " ".join(stmt.split())
        stmt = re.sub(r"^extern \"C\" \{ ", "", stmt)
        # The untyped 1.0 forms are parenthesized against the generic macros:
        # void(shmem_wait)(...).
        stmt = re.sub(r"^([^(]*?)\s*\((\w+)\)\s*\(", r"\1 \2(", stmt)
        m = re.match(r"^(?:[^(]*?[\s*])?\(?([A-Za-z_]\w*)\)?\s*\((.*)\)$", stmt)
        if not m or stmt.startswith(("typedef", "struct", "extern struct")):
            continue
        decls[m.group(1)] = stmt + ";"
    return decls


def roff_text(s):
    """Escape text for roff and turn `code` and *arg* into fonts."""
    s = s.replace("\\", "\\e")
    s = re.sub(r"`([^`]+)`", lambda m: "\\fB" + m.group(1).replace("-", "\\-") + "\\fR", s)
    s = re.sub(r"(?<![\w*])\*([A-Za-z_][\w ]*?)\*(?![\w*])", r"\\fI\1\\fR", s)
    return s


def roff_lines(lines):
    """Body text: paragraphs, `- ` bullets and `  ` indented literal blocks."""
    out, para, in_code = [], [], False

    def flush():
        if para:
            text = roff_text(" ".join(para))
            out.append(("\\&" + text) if text[:1] in ".'" else text)
            para.clear()

    for line in lines:
        if line.startswith("    ") and line.strip():
            flush()
            if not in_code:
                out.append(".PP\n.nf\n.RS 4")
                in_code = True
            code = line[4:].replace("\\", "\\e")
            out.append(("\\&" + code) if code[:1] in ".'" else code)
            continue
        if in_code:
            out.append(".RE\n.fi")
            in_code = False
        if not line.strip():
            flush()
        elif line.startswith("- "):
            flush()
            out.append(".IP \\(bu 2")
            para.append(line[2:].strip())
        else:
            if not para and (not out or not out[-1].startswith(".IP")):
                out.append(".PP")
            para.append(line.strip())
    flush()
    if in_code:
        out.append(".RE\n.fi")
    return out


def parse_pages(path):
    """pages.txt: `== NAME(SECTION) | summary` blocks of `key: value` lines
    then prose, with `% HEADING` starting a section of the page."""
    pages, cur = [], None
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("#"):
                continue
            m = re.match(r"^== (\S+)\((\d)\) \| (.*)$", line)
            if m:
                cur = {"name": m.group(1), "section": m.group(2), "summary": m.group(3),
                       "names": [], "aliases": [], "generic": [], "see": [], "body": [], "head": True}
                pages.append(cur)
                continue
            if cur is None:
                continue
            m = re.match(r"^(names|aliases|generic|see|include-help|table):\s*(.*)$", line)
            if cur["head"] and m:
                key = m.group(1)
                if key in ("names", "see", "aliases"):
                    cur[key] += m.group(2).split()
                elif key == "generic":
                    cur["generic"].append(m.group(2))
                else:
                    cur[key] = m.group(2).strip()
                continue
            if cur["head"] and not line.strip():
                continue  # blank lines before the text
            cur["head"] = False
            cur["body"].append(line)
    return pages


def expand(template, tables):
    m = re.search(r"\{(\w+)\}", template)
    if not m:
        return [template]
    return [n for row in tables[m.group(1)]
            for n in expand(template[:m.start()] + row + template[m.end():], tables)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--include", required=True, action="append")
    ap.add_argument("--pages", required=True)
    ap.add_argument("--tunables", required=True)
    ap.add_argument("--routines", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--help-of", action="append", default=[])
    # A cross build runs the tools' --help under this command: qemu-aarch64
    # and its options, a CMake list (';' between the arguments).
    ap.add_argument("--emulator", default="")
    a = ap.parse_args()

    pages = parse_pages(a.pages)
    tables = type_tables(a.cc, a.include, {t for p in pages for n in p["names"]
                                           for t in re.findall(r"\{(\w+)\}", n)})
    decls = declarations(a.cc, a.include)
    with open(a.routines) as f:
        routines = [r.strip() for r in f if r.strip()]
    helps = dict(h.split("=", 1) for h in a.help_of)

    errors, owner = [], {}
    for p in pages:
        p["expanded"] = [n for t in p["names"] for n in expand(t, tables)]
        for n in p["expanded"]:
            if n in owner:
                errors.append("%s is listed by both %s and %s" % (n, owner[n], p["name"]))
            owner[n] = p["name"]
            if n not in decls:
                errors.append("%s (page %s) is not declared in shmem.h or shmemx.h" % (n, p["name"]))
            elif n not in routines:
                errors.append("%s (page %s) is not a routine libweft exports" % (n, p["name"]))
    # SEE ALSO names what `man` finds (NAME is section 3, NAME(S) section S):
    # a page, or a name with a `.so` page.
    sections = {(n, p["section"]) for p in pages for n in [p["name"]] + p["aliases"]}
    sections |= {(n, "3") for n in owner}
    for p in pages:
        for ref in p["see"]:
            m = re.match(r"^(.+)\((\d)\)$", ref)
            if (m.groups() if m else (ref, "3")) not in sections:
                errors.append("page %s refers to %s, which has no page" % (p["name"], ref))
    if errors:
        sys.exit("gen-man.py: " + "\ngen-man.py: ".join(errors))

    for s in "137":
        os.makedirs(os.path.join(a.out, "man" + s), exist_ok=True)
    written = set()
    page_names = {p["name"] for p in pages}

    def write(section, name, text):
        path = os.path.join(a.out, "man" + section, name + "." + section)
        written.add(path)
        old = None
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
        if old != text:  # keep mtimes of unchanged pages
            with open(path, "w") as f:
                f.write(text)

    # SOURCE_DATE_EPOCH (reproducible builds) or today.
    date = time.strftime("%Y-%m", time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))))
    for p in pages:
        sec, name = p["section"], p["name"]
        title = name.upper()
        out = ['.\\" Generated by man/gen-man.py from man/pages.txt and weft\'s headers; edits are lost.',
               '.TH "%s" "%s" "%s" "weft %s" "%s"' % (title, sec, date, a.version, SECTION_TITLES[sec]),
               # Ragged right, no hyphenation: lists of long identifiers
               # cannot be justified without warnings.
               ".ad l", ".nh", ".SH NAME"]
        # NAME lists the page's name and every routine on it (whatis, apropos).
        listed = [name] + [n for n in p["aliases"] + p["expanded"] if n != name]
        out.append(", ".join(listed).replace("\\", "\\e") + " \\- " + roff_text(p["summary"]))
        if sec == "3":
            out += [".SH SYNOPSIS", ".nf", ".B #include <shmem.h>"]
            if any(n.startswith("shmemx_") for n in p["expanded"]):
                out.append(".B #include <shmemx.h>")
            if p["generic"]:
                out += [".PP", "C11 generic (and C++ overloads):"]
                out += [roff_text(g) for g in p["generic"]]
                out += [".PP", "Typed and untyped routines:"]
            else:
                out.append(".PP")
            for n in p["expanded"]:
                out.append(decls[n].replace("\\", "\\e").replace("-", "\\-"))
            out.append(".fi")
        body, section = [], "DESCRIPTION"
        sections = []
        for line in p["body"]:
            m = re.match(r"^% (.+)$", line)
            if m:
                sections.append((section, body))
                section, body = m.group(1).upper(), []
            else:
                body.append(line)
        sections.append((section, body))
        for heading, lines in sections:
            if not any(l.strip() for l in lines):
                continue
            out.append(".SH " + heading)
            out += roff_lines(lines)
        if "include-help" in p:
            prog = helps.get(p["include-help"])
            if prog:
                res = subprocess.run([x for x in a.emulator.split(";") if x] + [prog, "--help"], capture_output=True, text=True)
                usage = (res.stdout or res.stderr).rstrip("\n")
                out += [".SH USAGE", "The program's own summary (\\fB%s \\-\\-help\\fR):"
                        % p["include-help"], ".PP", ".nf", ".RS 2"]
                for l in usage.splitlines():
                    l = l.replace("\\", "\\e").replace("-", "\\-")
                    out.append(("\\&" + l) if l[:1] in ".'" else l)
                out += [".RE", ".fi"]
        if p.get("table") == "tunables":
            out += tunables_section(a.cc, a.include, a.tunables)
        if sec == "3" and p["expanded"]:
            out += [".SH PROFILING",
                    "Each routine above is also callable under its profiling name, \\fBp\\fR + name "
                    "(for example \\fBp%s\\fR), declared in \\fB<pshmem.h>\\fR; see \\fBshmem_pcontrol\\fR(3)."
                    % p["expanded"][0]]
        see = [s for s in p["see"]]
        if see:
            refs = []
            for s in see:
                m = re.match(r"^(.+)\((\d)\)$", s)
                refs.append("\\fB%s\\fR(%s)" % (m.group(1), m.group(2)) if m else "\\fB%s\\fR(3)" % s)
            out += [".SH SEE ALSO", ",\n".join(refs)]
        write(sec, name, "\n".join(out) + "\n")
        for n in p["expanded"]:
            for alias in (n, "p" + n):
                if alias != name and alias not in page_names:
                    write("3", alias, ".so man%s/%s.%s\n" % (sec, name, sec))
        # Other names of the page (generic names, oshc++): in its own section.
        for alias in p["aliases"]:
            write(sec, alias, ".so man%s/%s.%s\n" % (sec, name, sec))

    # Older pages of a family that left, or of names that no longer exist.
    for s in "137":
        d = os.path.join(a.out, "man" + s)
        for f in os.listdir(d):
            if os.path.join(d, f) not in written:
                os.unlink(os.path.join(d, f))

    unclaimed = [r for r in routines if r not in owner]
    with open(os.path.join(a.out, "unclaimed.txt"), "w") as f:
        f.write("".join(r + "\n" for r in unclaimed))
    if unclaimed:
        print("gen-man.py: warning: %d routine(s) have no manual page (add them to man/pages.txt): %s"
              % (len(unclaimed), " ".join(unclaimed[:20])), file=sys.stderr)


def tunables_section(cc, include, path):
    """weft(7)'s ENVIRONMENT: every row of tunables.def by category (in the
    order of its WEFT_TUNABLE_IN rows), then the older names."""
    # Variadic: columns added after the description are ignored.
    probe = ('#define WEFT_TUNABLE(id, name, kind, def, doc, ...) @TUN #id @SEP name @SEP kind @SEP def @SEP doc @END\n'
             '#define WEFT_TUNABLE_ALIAS(old, id) @ALIAS old @SEP #id @END\n'
             '#define WEFT_TUNABLE_CATEGORY(category, title) @CAT #category @SEP title @END\n'
             '#define WEFT_TUNABLE_IN(id, category) @IN #id @SEP #category @END\n'
             '#include "%s"\n' % os.path.abspath(path))
    text = preprocess(cc, include, probe)
    out = [".SH ENVIRONMENT",
           "Every environment variable weft reads, with its kind and default "
           "(\\fBweft\\-info \\-\\-tunables\\fR shows the values in effect). "
           "A \\fIsize\\fR takes a byte count with an optional K, M, G or T suffix (powers of 1024); "
           "a \\fIbool\\fR one of 1/0, yes/no, on/off, true/false; a \\fIswitch\\fR (the OpenSHMEM "
           "specification's variables) is on for any value except an explicit 0, n, no, off, false, "
           "disable or disabled. An empty variable counts as unset; a malformed value is a fatal "
           "error at \\fBshmem_init\\fR naming the variable."]
    rows = {}
    for m in re.finditer(r"@TUN (.*?) @SEP (.*?) @SEP (.*?) @SEP (.*?) @SEP (.*?) @END", text, re.S):
        ident, name, kind, default, doc = (ast.literal_eval(g.strip()) for g in m.groups())
        rows[ident] = [".TP", "\\fB%s\\fR (%s, default \\(lq%s\\(rq)" % (name, kind, roff_text(default)),
                       roff_text(doc)]
    titles = dict((ast.literal_eval(a.strip()), ast.literal_eval(b.strip()))
                  for a, b in re.findall(r"@CAT (.*?) @SEP (.*?) @END", text, re.S))
    category = None
    for m in re.finditer(r"@IN (.*?) @SEP (.*?) @END", text, re.S):
        ident, cat = ast.literal_eval(m.group(1).strip()), ast.literal_eval(m.group(2).strip())
        if cat != category:
            category = cat
            out += [".SS " + roff_text(titles[cat])]
        out += rows.pop(ident)
    if rows:
        sys.exit("gen-man.py: tunables without a category: " + " ".join(rows))
    aliases = []
    for m in re.finditer(r"@ALIAS (.*?) @SEP (.*?) @END", text, re.S):
        aliases.append((ast.literal_eval(m.group(1).strip()), ast.literal_eval(m.group(2).strip())))
    if aliases:
        out += [".SS Older names",
                "Read in place of the variable they stand for when that one is unset. When both "
                "are set the current name wins and PE 0 prints a note on stderr."]
        ids = {}
        for m in re.finditer(r'WEFT_TUNABLE\((\w+),\s*"(\w+)"', open(path).read()):
            ids[m.group(1)] = m.group(2)
        for old, ident in aliases:
            out += [".TP", "\\fB%s\\fR" % old, "stands for \\fB%s\\fR." % ids.get(ident, ident)]
    return out


if __name__ == "__main__":
    main()
