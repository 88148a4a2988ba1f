"""Build settings beyond pyproject.toml: kdump's optional native extension.

``kdump._speedups`` (C, CPython API) speeds up record scanning and decoding.  It is
optional: where no C compiler is available the build prints a warning and kdump
installs and runs on its pure-Python code, which gives identical results
(tests/native/test_speedups.py).  ``KDUMP_PURE_PYTHON=1`` selects the pure-Python code even
when the extension is built.

``KDUMP_REQUIRE_NATIVE=1`` (set by .ci/run) makes the extension required: a build
failure fails the install, so CI cannot pass on the pure-Python code by accident (and
tests/conftest.py then fails the session when the extension does not import).
"""

import os

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kdump._speedups",
            # one module from several C files, one per family of entry points
            # (kdump/_speedups.h lists them)
            sources=["kdump/_speedups.c", "kdump/_speedups_walk.c", "kdump/_speedups_crc.c",
                     "kdump/_speedups_writers.c", "kdump/_speedups_runs.c",
                     "kdump/_speedups_reads.c",
                     "kdump/_speedups_packed.c", "kdump/_speedups_timeline.c"],
            depends=["kdump/_speedups.h", "kdump/_layouts.h"],
            optional=os.environ.get("KDUMP_REQUIRE_NATIVE", "0") in ("", "0"),
            extra_compile_args=["-O2"],
        )
    ]
)
