"""What the Triton and IREE corpus builders share: a corpus pinned by its manifest.ron.

The manifest records the sha256 of every file under build/ and data/ and of the sources the
corpus was built from; `check` verifies that without the compiler (CI), `main` is the
command line both build.py scripts have (rebuild, --check, --rebuild-check).
"""
import hashlib
import re
import shutil
import sys
import tempfile
from pathlib import Path


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sources_hash(here, sources):
    h = hashlib.sha256()
    for s in sources:
        h.update(s.encode() + b"\0" + (Path(here) / s).read_bytes())
    return h.hexdigest()


def listed_files(manifest_text):
    files = re.findall(r'^\s*\("((?:build|data)/[^"]+)", "([0-9a-f]{64})"\),$', manifest_text, re.M)
    m = re.search(r'sources_sha256: "([0-9a-f]{64})"', manifest_text)
    return dict(files), (m.group(1) if m else None)


def check(here, label, sources):
    """Exits 1 naming every file that differs from manifest.ron, or sources that changed."""
    text = (here / "manifest.ron").read_text()
    files, src = listed_files(text)
    bad = []
    if src != sources_hash(here, sources):
        bad.append(f"{' or '.join(sources)} changed since manifest.ron was built: run build.py")
    present = {str(p.relative_to(here)) for d in ("build", "data") for p in (here / d).rglob("*") if p.is_file()}
    for f in sorted(present - files.keys()):
        bad.append(f"{f}: not listed in manifest.ron")
    for f, h in sorted(files.items()):
        if f not in present:
            bad.append(f"{f}: listed in manifest.ron but missing")
        elif sha256(here / f) != h:
            bad.append(f"{f}: sha256 differs from manifest.ron")
    for b in bad:
        print(f"{label} corpus:", b, file=sys.stderr)
    if bad:
        sys.exit(1)
    print(f"{label} corpus: {len(files)} files match manifest.ron, sources unchanged")


def main(here, label, sources, build_into, doc):
    """The command line: no argument rebuilds in place, --check, --rebuild-check."""
    arg = sys.argv[1] if len(sys.argv) > 1 else ""
    if arg == "--check":
        check(here, label, sources)
    elif arg == "--rebuild-check":
        with tempfile.TemporaryDirectory() as tmp:
            build_into(Path(tmp))
            a = (Path(tmp) / "manifest.ron").read_text()
            b = (here / "manifest.ron").read_text()
            if a != b:
                print(f"{label} corpus: a fresh build differs from the committed one", file=sys.stderr)
                sys.exit(1)
        check(here, label, sources)
        print(f"{label} corpus: a fresh build is byte for byte the committed one")
    elif arg == "":
        with tempfile.TemporaryDirectory() as tmp:
            build_into(Path(tmp))
            for d in ("build", "data"):
                shutil.rmtree(here / d, ignore_errors=True)
                shutil.move(str(Path(tmp) / d), str(here / d))
            shutil.copy(Path(tmp) / "manifest.ron", here / "manifest.ron")
        check(here, label, sources)
    else:
        print(doc, file=sys.stderr)
        sys.exit(2)
