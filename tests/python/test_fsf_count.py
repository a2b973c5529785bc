"""tools/fsf-count on a few Fairy-Stockfish built-ins: the variants Menagerie
plays are counted exactly like pyffish counts them, and the script reports
every variant with one row."""
import subprocess
import sys

from conftest import ROOT, binary

SAMPLE = ["chess", "crazyhouse", "makruk", "kingofthehill", "atomic", "xiangqi", "janggi"]


def test_fsf_count_sample_is_exact():
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "fsf-count" / "fsf_count.py"),
            "--menagerie",
            str(binary("menagerie")),
            "--only",
            ",".join(SAMPLE),
            "--positions",
            "3",
            "--start-depth",
            "2",
            "--fail-on-mismatch",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "MENAGERIE_FSF_VARIANTS_INI": ""},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {line.split()[0]: line.split()[2] for line in proc.stdout.splitlines()[1:-1]}
    assert set(rows) == set(SAMPLE), proc.stdout
    assert all(rows[v] == "exact" for v in SAMPLE), proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("exact "), proc.stdout
