#!/usr/bin/env python3
"""Checks an unpacked Central Portal bundle for what Maven Central refuses.

    verify_bundle.py BUNDLE_DIR BOM_POM

The published components are distlock-bom, distlock-parent (every module's parent) and each artifact
distlock-bom manages: the bundle must hold exactly these. Each one needs its POM, and for jar
packaging its jar, sources and Javadoc; every file a .asc signature that gpg verifies (GNUPGHOME holds
the key) and .md5/.sha1 checksums that match. Every POM, with what it inherits from its parent, names
the project, describes it and gives its URL, license, developers and SCM. No POM names a SNAPSHOT,
and no dependency outside test scope is a distlock artifact that is not published.
Prints one line per problem and exits 1 when there is any.
"""
import hashlib
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = {"m": "http://maven.apache.org/POM/4.0.0"}
GROUP = "dev.distlock"
REQUIRED = ["name", "description", "url", "licenses/m:license/m:name", "developers/m:developer",
            "scm/m:url", "scm/m:connection"]


def text(elem, path):
    found = elem.find("m:" + path, NS)
    return found.text.strip() if found is not None and found.text else None


def published_artifacts(bom_pom):
    root = ET.parse(bom_pom).getroot()
    managed = {text(d, "artifactId") for d in root.findall("m:dependencyManagement/m:dependencies/m:dependency", NS)}
    return managed | {"distlock-bom", "distlock-parent"}


def checksums_and_signature(path, problems):
    data = path.read_bytes()
    for algorithm in ("md5", "sha1"):
        sidecar = path.with_name(path.name + "." + algorithm)
        if not sidecar.exists():
            problems.append(f"{path.name}: no .{algorithm}")
        elif sidecar.read_text().split()[0].lower() != hashlib.new(algorithm, data).hexdigest():
            problems.append(f"{path.name}: .{algorithm} does not match the file")
    signature = path.with_name(path.name + ".asc")
    if not signature.exists():
        problems.append(f"{path.name}: no .asc signature")
        return
    verify = subprocess.run(["gpg", "--batch", "--verify", str(signature), str(path)], capture_output=True)
    if verify.returncode != 0:
        problems.append(f"{path.name}: signature does not verify ({verify.stderr.decode().strip().splitlines()[-1]})")


def metadata_problems(artifact, pom, poms):
    problems = []
    chain = [pom]
    parent = pom.find("m:parent", NS)
    if parent is not None:
        parent_id = text(parent, "artifactId")
        if parent_id not in poms:
            return [f"{artifact}: parent {parent_id} is not in the bundle"]
        chain.append(poms[parent_id])
    for element in REQUIRED:
        if all(text(p, element) is None for p in chain):
            problems.append(f"{artifact}: POM has no <{element.replace('m:', '')}>")
    return problems


def dependency_problems(artifact, pom, published):
    problems = []
    for section in ("m:dependencies/m:dependency", "m:dependencyManagement/m:dependencies/m:dependency",
                    "m:profiles/m:profile/m:dependencies/m:dependency"):
        for dep in pom.findall(section, NS):
            if text(dep, "scope") == "test":
                continue
            if text(dep, "groupId") == GROUP and text(dep, "artifactId") not in published:
                problems.append(f"{artifact}: depends on {text(dep, 'artifactId')}, which is not published")
    return problems


def main(bundle_dir, bom_pom):
    bundle = pathlib.Path(bundle_dir)
    published = published_artifacts(bom_pom)
    group_dir = bundle / GROUP.replace(".", "/")
    present = {p.name for p in group_dir.iterdir()} if group_dir.is_dir() else set()
    problems = [f"{a}: published (distlock-bom) but not in the bundle" for a in sorted(published - present)]
    problems += [f"{a}: in the bundle but not published (not in distlock-bom)" for a in sorted(present - published)]
    poms = {}
    for artifact in sorted(present & published):
        versions = [v for v in (group_dir / artifact).iterdir() if v.is_dir()]
        if len(versions) != 1:
            problems.append(f"{artifact}: expected one version, found {[v.name for v in versions]}")
            continue
        version_dir = versions[0]
        base = f"{artifact}-{version_dir.name}"
        pom_file = version_dir / f"{base}.pom"
        if not pom_file.exists():
            problems.append(f"{artifact}: no POM")
            continue
        if "SNAPSHOT" in pom_file.read_text():
            problems.append(f"{artifact}: the POM names a SNAPSHOT version")
        poms[artifact] = ET.parse(pom_file).getroot()
        if (text(poms[artifact], "packaging") or "jar") == "jar":
            for suffix in ("", "-sources", "-javadoc"):
                if not (version_dir / f"{base}{suffix}.jar").exists():
                    problems.append(f"{artifact}: no {base}{suffix}.jar")
        for path in sorted(version_dir.iterdir()):
            if path.suffix not in (".asc", ".md5", ".sha1", ".sha256", ".sha512"):
                checksums_and_signature(path, problems)
    for artifact, pom in poms.items():
        problems += metadata_problems(artifact, pom, poms)
        problems += dependency_problems(artifact, pom, published)
    for problem in problems:
        print("  " + problem)
    print(f"{len(poms)} components checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
