import subprocess
import sys

HEAVY = ["torch", "open3d", "ray", "openai", "xllamacpp", "trimesh", "pyarrow", "playwright", "scipy"]


def test_help_does_not_import_heavy_libraries():
    code = (
        "import sys\n"
        "from scenebench.cli import app\n"
        "heavy = [m for m in %r if m in sys.modules]\n"
        "print(','.join(heavy))\n" % HEAVY
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing the CLI pulled in: {out.stdout.strip()}"


def test_help_runs():
    out = subprocess.run([sys.executable, "-m", "scenebench", "--help"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "score" in out.stdout and "list" in out.stdout
