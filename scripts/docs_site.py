#!/usr/bin/env python3
"""The documentation site's two helpers, called by scripts/docs-site.sh.

  docs_site.py stage <out>   copies docs/ to <out> and adds the pages cut from the README's sections,
                             so the README stays the one source of what it says
  docs_site.py check <site>  checks every internal link and anchor of the built HTML (no network)
"""
import html.parser
import os
import re
import shutil
import sys
import urllib.parse

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# Page -> (title, README headings whose sections it takes, in order). A "## " heading takes its section up to
# the next "## "; a "### " heading up to the next "### " or "## "; a "**Bold.**" paragraph lead takes its
# paragraphs up to the next bold lead or heading.
PAGES = {
    "index.md": ("distlock", ["__intro__", "## Features"]),
    "getting-started.md": ("Getting started", [
        "## Quick start", "## Getting started", "### 1. Get the artifacts", "### 2. Dependencies",
        "### 3. Lock a method", "### 4. Start", "### Web applications: `423 Locked`", "### The API in one screen"]),
    "operations.md": ("Operations", [
        "## Operations", "### During an outage", "### Properties",
        "### Ahead-of-time processing (Spring AOT, GraalVM native images)"]),
    "scheduled-jobs.md": ("Scheduled jobs", ["## Scheduled jobs across instances"]),
    "beyond-the-mutex.md": ("Beyond the mutex", ["## Beyond the mutex"]),
    "multi-key.md": ("Multi-key locks", ["## Multi-key locks"]),
    "kotlin.md": ("Kotlin coroutines", ["## Kotlin coroutines"]),
    "leader-election.md": ("Leader election", ["## Leader election"]),
    "semaphores-guide.md": ("Semaphores", ["## Semaphores"]),
    "testing.md": ("Testing code that uses locks", ["## Testing code that uses locks"]),
    "backends/index.md": ("Backends", ["## Backends"]),
    "backends/redis.md": ("Redis", ["**Redis key layout.**", "**Redis failover.**",
                                    "**What Redlock does and does not guarantee.**"]),
    "backends/zookeeper.md": ("ZooKeeper", ["**ZooKeeper.**"]),
    "backends/etcd.md": ("etcd", ["**etcd.**"]),
    "backends/jdbc.md": ("JDBC: PostgreSQL, MySQL/MariaDB, H2", ["**JDBC.**"]),
    "modules.md": ("Modules", ["## Modules"]),
    "contract-kit.md": ("The contract and your own backend", ["## The contract", "### Testing your own backend"]),
}

# What each backend page shows first: the quick start's snippets for it.
BACKEND_SNIPPETS = {
    "backends/redis.md": ["redis:pom", "redis:yaml"],
    "backends/zookeeper.md": ["zookeeper:pom", "zookeeper:yaml"],
    "backends/etcd.md": ["etcd:pom", "etcd:yaml", "etcd:boot35-properties"],
    "backends/jdbc.md": ["jdbc:pom", "jdbc:yaml"],
}
CAPTIONS = {
    "pom": "Dependencies (versions from the BOM, see [Getting started](%sgetting-started.md)):",
    "yaml": "`application.yml`:",
    "boot35-properties": "On Spring Boot 3.5 only, in the pom:",
}

# What the home page adds to the README's introduction.
HOME_LINKS = {
    "index.md": """
## Where to start

- [Getting started](getting-started.md): dependencies, one annotated method, the first start.
- [Backends](backends/index.md): what a lock is on Redis, ZooKeeper, etcd, JDBC and in memory, and how each
  behaves when a holder dies or the server fails.
- [The contract](contract.md): the rules every backend keeps; [fencing](fencing.md): why tokens, and how a
  resource checks them.
- [Operations](operations.md) and the [telemetry reference](telemetry.md): metrics, endpoint, health, logs.
- [Glossary](glossary.md): one name per concept.
- [Javadoc](https://javadoc.io/doc/dev.distlock): the API of every published module.
""",
}

# The sections a "##"/"###" heading ends at, and the bold leads a backend paragraph ends at.
BOLD_LEAD = re.compile(r"^\*\*[^*]+\.\*\*")


def readme_sections(lines):
    """Heading or bold lead -> the lines of its section (a bold lead's own line included), code blocks skipped
    when looking for where a section ends."""
    fenced, in_code = [], False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
            fenced.append(True)
        else:
            fenced.append(in_code)
    heading = [None if fenced[i] else re.match(r"(#+) ", line) for i, line in enumerate(lines)]
    sections = {}
    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        if heading[i]:
            level = len(heading[i].group(1))
            end = i + 1
            while end < len(lines) and not (heading[end] and len(heading[end].group(1)) <= level):
                end += 1
            sections[line.strip()] = lines[i + 1:end]
        elif BOLD_LEAD.match(line):
            end = i + 1
            while end < len(lines) and not (not fenced[end] and (BOLD_LEAD.match(lines[end]) or heading[end])):
                end += 1
            sections[BOLD_LEAD.match(line).group(0)] = lines[i:end]
    first = next(i for i, match in enumerate(heading) if match and len(match.group(1)) == 2)
    sections["__intro__"] = lines[1:first]
    return sections


def own_part(heading, body):
    """A '## ' section up to its first '### ' (subsections are pages' own entries), and a backend section's
    text before its first bold lead."""
    if heading.startswith("## "):
        cut = [k for k, line in enumerate(body) if line.startswith("### ")]
        body = body[:cut[0]] if cut else body
        if heading == "## Backends":
            bold = [k for k, line in enumerate(body) if BOLD_LEAD.match(line)]
            body = body[:bold[0]] if bold else body
    return body


def slug(text):
    """The anchor MkDocs (Python-Markdown's toc) gives a heading."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def snippet(readme, name):
    match = re.search(r"<!-- quickstart:" + re.escape(name) + r" -->\s*\n(```\w*\n.*?\n```)", readme, re.S)
    if not match:
        raise SystemExit("README has no snippet quickstart:" + name)
    return match.group(1)


def rewrite_links(text, page, anchors, staged_files):
    """README-relative and docs-relative links as the site has them; files outside the site become paths."""
    depth = page.count("/")
    up = "../" * depth

    def replace(match):
        label, target = match.group(1), match.group(2)
        if re.match(r"[a-z]+:", target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        if path == "" and anchor:
            where = anchors.get(anchor, page)
            return "[%s](%s#%s)" % (label, "" if where == page else up + where, anchor)
        # Resolve against the README (repository root) for cut pages, against docs/ for docs' own pages.
        base = "" if page in PAGES else os.path.dirname(page)
        resolved = os.path.normpath(os.path.join("docs" if page not in PAGES else "", base, path))
        if resolved == "README.md" and anchor in anchors:
            return "[%s](%s%s#%s)" % (label, up, anchors[anchor], anchor)
        if resolved.startswith("docs" + os.sep) or resolved.startswith("docs/"):
            inside = resolved[len("docs/"):]
            if inside in staged_files:
                return "[%s](%s%s%s)" % (label, up, inside, "#" + anchor if anchor else "")
        resolved = resolved.replace(os.sep, "/")
        if label.strip("`") == resolved:
            return "`%s` (in the repository)" % resolved
        return "%s (`%s` in the repository)" % (label, resolved)

    return re.sub(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)", replace, text)


def stage(out):
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    lines = readme.split("\n")
    sections = readme_sections(lines)
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(os.path.join(ROOT, "docs"), out)
    staged_files = set()
    for dirpath, _, files in os.walk(out):
        for name in files:
            staged_files.add(os.path.relpath(os.path.join(dirpath, name), out))
    staged_files.update(PAGES)

    # Where each README anchor lands.
    anchors = {}
    for page, (_, headings) in PAGES.items():
        for heading in headings:
            if heading.startswith("#"):
                anchors[slug(heading.lstrip("# "))] = page
        for heading in headings:
            body = own_part(heading, sections.get(heading, []))
            for line in body:
                if re.match(r"#+ ", line):
                    anchors.setdefault(slug(line.lstrip("# ")), page)

    for page, (title, headings) in PAGES.items():
        parts = []
        for heading in headings:
            if heading not in sections:
                raise SystemExit("README has no section '%s' for %s" % (heading, page))
            body = own_part(heading, sections[heading])
            if heading.startswith("#") and heading.lstrip("# ") != title and heading != "__intro__":
                parts.append("## " + heading.lstrip("# "))
            parts += body
            parts.append("")
        text = "\n".join(parts)
        text = re.sub(r"<!-- quickstart:[\w:-]+ -->\n", "", text).replace("out of this file", "out of the README")
        text = rewrite_links(text, page, anchors, staged_files)
        lead = ["# " + title, ""]
        for key in BACKEND_SNIPPETS.get(page, []):
            caption = CAPTIONS[key.split(":", 1)[1]]
            lead += [caption % ("../" * page.count("/")) if "%s" in caption else caption, "", snippet(readme, key), ""]
        text = "\n".join(lead) + text + HOME_LINKS.get(page, "")
        target = os.path.join(out, page)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)

    for dirpath, _, files in os.walk(out):
        for name in files:
            if name.endswith(".md"):
                path = os.path.join(dirpath, name)
                page = os.path.relpath(path, out)
                if page in PAGES:
                    continue
                text = open(path, encoding="utf-8").read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(rewrite_links(text, page, anchors, staged_files))


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for attr in ("href", "src"):
            if attrs.get(attr) and not (tag == "link" and attrs.get("rel") in ("canonical",)):
                self.hrefs.append(attrs[attr])


def check(site):
    pages = {}
    for dirpath, _, files in os.walk(site):
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(dirpath, name)
                parser = Links()
                parser.feed(open(path, encoding="utf-8").read())
                pages[os.path.relpath(path, site)] = parser
    broken = []
    checked = 0
    for page, parser in sorted(pages.items()):
        for href in parser.hrefs:
            if re.match(r"[a-z][a-z0-9+.-]*:", href) or href.startswith("//"):
                continue  # external: not checked here
            path, _, anchor = href.partition("#")
            path = urllib.parse.unquote(path.split("?")[0])
            if path.startswith("/"):
                target = os.path.normpath(path.lstrip("/") or "index.html")  # from the site's root (404.html)
            else:
                target = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if path.endswith("/") or (path and os.path.isdir(os.path.join(site, target))):
                target = os.path.join(target, "index.html")
            checked += 1
            if not os.path.exists(os.path.join(site, target)):
                broken.append("%s: %s (no file %s)" % (page, href, target))
            elif anchor and target in pages and anchor not in pages[target].ids:
                broken.append("%s: %s (no anchor #%s in %s)" % (page, href, anchor, target))
    if not pages:
        raise SystemExit("No HTML pages under %s: build the site first (scripts/docs-site.sh build)" % site)
    for line in broken:
        print("broken link: " + line, file=sys.stderr)
    print("%d pages, %d internal links checked, %d broken" % (len(pages), checked, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("stage", "check"):
        raise SystemExit(__doc__)
    if sys.argv[1] == "stage":
        stage(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2]))
