"""Build settings beyond pyproject.toml: kdump's optional native extension.

``kdump._speedups`` (C, CPython API) speeds up record scanning and decoding.  It is
optional: where no C compiler is available the build prints a warning and kdump
installs and runs on its pure-Python code, which gives identical results
(tests/test_speedups.py).  ``KDUMP_PURE_PYTHON=1`` selects the pure-Python code even
when the extension is built.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kdump._speedups",
            # one module from several C files, one per family of entry points
            # (kdump/_speedups.h lists them)
            sources=["kdump/_speedups.c", "kdump/_speedups_walk.c", "kdump/_speedups_crc.c",
                     "kdump/_speedups_writers.c", "kdump/_speedups_runs.c",
                     "kdump/_speedups_packed.c"],
            depends=["kdump/_speedups.h", "kdump/_layouts.h"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
