"""The package as users install it: pip builds it through the project's CMake (the in-tree backend
in python/build_backend) into an empty prefix, and `import commlab` from that prefix alone works and
reports the project's version."""
import glob
import os
import re
import subprocess
import sys

import pytest

commlab = pytest.importorskip("commlab")

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def project_version():
    text = open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8").read()
    return re.search(r"project\(\w+ VERSION ([0-9.]+)", text).group(1)


def test_version_is_the_projects():
    assert commlab.__version__ == project_version()


def test_pip_installs_into_an_empty_prefix(tmp_path):
    pytest.importorskip("pip")
    build = os.environ.get("COMMLAB_BUILD_DIR")
    if not build:
        pytest.skip("COMMLAB_BUILD_DIR is not set (ctest sets it to the build folder)")
    prefix = tmp_path / "prefix"
    env = dict(os.environ, COMMLAB_BUILD_DIR=build, PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
         "--break-system-packages", "--prefix", str(prefix), SOURCE],
        env=env, capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stdout + install.stderr
    inits = glob.glob(str(prefix / "**" / "commlab" / "__init__.py"), recursive=True)
    assert len(inits) == 1, inits
    site = os.path.dirname(os.path.dirname(inits[0]))
    probe = subprocess.run(
        [sys.executable, "-c",
         "import commlab; print(commlab.__file__); print(commlab.__version__); "
         "print(commlab.time_collective(ranks=4, bytes=1 << 20)['steps'])"],
        env=dict(env, PYTHONPATH=site), capture_output=True, text=True, timeout=120,
        cwd=str(tmp_path))
    assert probe.returncode == 0, probe.stderr
    path, version, steps = probe.stdout.split()
    assert path.startswith(str(prefix)), path
    assert version == project_version()
    # A ring all-reduce on 4 ranks: 2 (N - 1) = 6 steps.
    assert int(steps) == 6


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v", "-p", "no:cacheprovider"]))


def test_mypy_strict_accepts_the_typed_example():
    pytest.importorskip("mypy")
    package = os.path.dirname(os.path.dirname(os.path.abspath(commlab.__file__)))
    example = os.path.join(SOURCE, "examples", "typed_api.py")
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                          "--cache-dir", os.devnull, example],
                         env=dict(os.environ, MYPYPATH=package), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    # The stubs are what mypy read: a wrong argument type is an error it reports.
    bad = os.path.join(os.path.dirname(os.path.abspath(__file__)), "typed_misuse.py")
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                          "--cache-dir", os.devnull, bad],
                         env=dict(os.environ, MYPYPATH=package), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 1, run.stdout
    assert 'Argument "ranks" to "time_collective" has incompatible type "str"' in run.stdout
