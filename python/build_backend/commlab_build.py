"""The PEP 517 build backend of the `commlab` Python package: the extension is built by the
project's own CMake (nothing is downloaded: Debian's cmake, ninja, pybind11 and compilers), then the
package folder it makes (build/python/commlab: the extension, the Python modules, the stubs) is
written as a wheel. `python3 -m pip install --no-build-isolation .` and
`python3 -m pip wheel --no-build-isolation .` both go through build_wheel.

COMMLAB_BUILD_DIR names a CMake build folder to reuse (one already configured with the Python
module builds only that target); otherwise the backend configures build/python-wheel."""
import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "commlab"


def _version():
    text = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    return re.search(r"project\(\w+ VERSION ([0-9.]+)", text).group(1)


def _tag():
    impl = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (impl, impl, platform)


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: CommLab's engine from Python: codecs, collective plans with SkipReduce, "
            "trimmable packets, the simulator and PyTorch DDP hooks\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\n" % (NAME, _version()))


def _build_package():
    build = os.environ.get("COMMLAB_BUILD_DIR") or os.path.join(ROOT, "build", "python-wheel")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.check_call([
            "cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
            "-DCOMMLAB_BUILD_PYTHON=ON", "-DCOMMLAB_BUILD_GUI=OFF", "-DCOMMLAB_BUILD_TESTS=OFF",
            "-DCOMMLAB_BUILD_BENCH=OFF", "-DPython3_EXECUTABLE=" + sys.executable])
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    subprocess.check_call(["cmake", "--build", build, "--target", "commlab_python", "-j", jobs],
                          stdout=sys.stderr)
    package = os.path.join(build, "python", NAME)
    if not os.path.isdir(package):
        raise RuntimeError("%s: the CMake build made no package folder (is COMMLAB_BUILD_PYTHON "
                           "on? apt-get install python3-dev pybind11-dev)" % package)
    return package


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = "%s-%s.dist-info" % (NAME, _version())
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build_package()
    version = _version()
    wheel_name = "%s-%s-%s.whl" % (NAME, version, _tag())
    info = "%s-%s.dist-info" % (NAME, version)
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        def add(arcname, data):
            wheel.writestr(arcname, data)
            records.append(_record_line(arcname, data))

        for name in sorted(os.listdir(package)):
            path = os.path.join(package, name)
            if os.path.isfile(path) and not name.endswith(".pyc"):
                add("%s/%s" % (NAME, name), open(path, "rb").read())
        add(info + "/METADATA", _metadata().encode())
        add(info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: commlab_build\n"
                              "Root-Is-Purelib: false\nTag: %s\n" % _tag()).encode())
        records.append(info + "/RECORD,,")
        wheel.writestr(info + "/RECORD", "\n".join(records) + "\n")
    return wheel_name
