"""kdump's command line: a thin Click layer over the core.

Each subcommand parses options, calls an operation from :mod:`kdump.ops` (an iterator
of plain objects) and hands the objects to a renderer.  Heavy modules (rich, codecs,
the core itself) are imported inside the commands, so ``kdump --help`` stays fast, and
a command's module is imported only when that command runs (:class:`LazyGroup`): ``kdump
verify-crc`` loads kdump/cli/verify_crc.py, not the other commands' options and imports.

A command module defines plain Click commands (``@click.command("dump")``) and never
imports this package: the group takes each command from the module
:data:`COMMAND_MODULES` names, so the two do not import each other.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import sys
from typing import Any


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C before the command runs (imports take a while): no traceback."""
    os.write(2, b"kdump: interrupted\n")
    os._exit(130)


#: this process is kdump itself (the console script, or python -m kdump), not a test or
#: a program importing the package: only then does kdump own the process's signals
_OWN_PROCESS = bool(sys.argv) and (
    os.path.basename(sys.argv[0]) == "kdump"
    or sys.argv[0].endswith(os.path.join("kdump", "__main__.py")))

def _terminated_while_starting(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP before the command runs: nothing written yet, one line."""
    os.write(2, b"kdump: terminated (SIGTERM)\n" if signum == signal.SIGTERM
             else b"kdump: hung up (SIGHUP)\n")
    os._exit(128 + signum)


# installed before the heavy imports below; main() hands SIGINT back to Python
if _OWN_PROCESS and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    try:
        signal.signal(signal.SIGINT, _interrupted_while_starting)
        for _sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(_sig) == signal.SIG_DFL:
                signal.signal(_sig, _terminated_while_starting)
    except (ValueError, OSError):  # not the main thread
        pass

import click  # noqa: E402

from ..version import __version__  # noqa: E402
from .exitcodes import ExitCode  # noqa: E402

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: the module of kdump/cli that defines each command (a ``click.Command`` of that name,
#: at module level), imported when the command runs (every one of them for ``--help``);
#: tests/test_startup.py checks that every command of kdump/cli is in this table
COMMAND_MODULES = {
    "browse": "browse",
    "compare-replicas": "compare_replicas",
    "coordinator-partition": "coordinator_partition",
    "dump": "dump",
    "export": "export",
    "find-offset": "find",
    "find-time": "find",
    "lag": "lag",
    "metadata": "metadata",
    "repair": "repair",
    "report": "report",
    "retention": "retention",
    "schemas": "schemas",
    "size-report": "size_report",
    "spark": "spark",
    "timeline": "timeline",
    "verify-crc": "verify_crc",
    "verify-index": "verify_index",
}


class LazyGroup(click.Group):
    """A group whose commands are defined by modules imported on demand: the one a
    command line names, or all of them to list them (``--help``, the man pages)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMAND_MODULES and cmd_name not in self.commands:
            self.add_command(_command_of(COMMAND_MODULES[cmd_name], cmd_name))
        elif cmd_name not in COMMAND_MODULES:
            self.list_commands(ctx)  # no such command: all of them, for click's "did you mean"
        cmd = self.commands.get(cmd_name)
        return None if cmd is None else _with_remote_timeout(cmd)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for name in COMMAND_MODULES:
            self.get_command(ctx, name)
        return sorted(self.commands)


def _command_of(module: str, name: str) -> click.Command:
    """The command ``name`` that the module ``kdump.cli.<module>`` defines."""
    import importlib

    mod = importlib.import_module(f"{__name__}.{module}")
    found = [c for c in vars(mod).values() if isinstance(c, click.Command) and c.name == name]
    if len(found) != 1:  # COMMAND_MODULES is wrong: a bug, not the user's
        raise LookupError(f"kdump/cli/{module}.py defines {len(found)} commands {name!r}")
    return found[0]


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="kdump")
def cli() -> None:
    """Read Apache Kafka's on-disk data with no broker and no JVM.

    Point kdump at a segment, a partition directory or a whole broker log dir
    (log.dirs).  Exit status: 0 clean, 1 problems found in the data, 2 usage or
    I/O error.
    """


def _with_remote_timeout(cmd: click.Command) -> click.Command:
    """``cmd`` (and, for a group, its subcommands) with ``--remote-timeout``: every
    command reads URLs, so every command takes the bound on a remote request."""
    from .options import remote_timeout_option

    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            _with_remote_timeout(sub)
    elif not any(p.name == "remote_timeout" for p in cmd.params):
        cmd.params.append(remote_timeout_option())
    return cmd


def main(argv: list[str] | None = None) -> Any:
    """Console entry point: no traceback ever reaches the user."""
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        # from here on a KeyboardInterrupt unwinds normally (renderers close, temporary
        # files are removed) and is reported below in one line
        signal.signal(signal.SIGINT, _interrupted)
    if _OWN_PROCESS:
        _catch_termination()
    from .. import tempfiles
    from ..errors import Interrupted, KdumpError

    tempfiles.forget()  # the inputs of this command only
    # libraries' log records (botocore, s3fs, aiohttp ...) are not kdump's output: without
    # a handler, Python would print their warnings on stderr, URLs and all
    logging.getLogger().addHandler(logging.NullHandler())
    try:
        # make_context + invoke rather than cli.main(): click's main() turns a broken
        # pipe into exit 1, the code for data problems; kdump handles it below
        args = sys.argv[1:] if argv is None else argv
        try:
            with cli.make_context("kdump", list(args)) as ctx:
                rv = cli.invoke(ctx)
        except (click.exceptions.Exit, BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception:
            if _stopped_by is None:
                raise
            # what the user did stands, whatever exception the unwinding ended with
            raise Interrupted(_stopped_by) from None
    except click.exceptions.Exit as e:
        return _exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        return _exit(ExitCode.ERROR)
    except click.exceptions.Abort:
        click.echo("kdump: aborted", err=True)
        return _exit(ExitCode.ERROR)
    except KdumpError as e:
        click.echo(f"kdump: {e}", err=True)
        return _exit(ExitCode.ERROR)
    except BrokenPipeError:
        # the reader went away (``kdump dump ... | head``): not an error
        _stdout_to_devnull()
        return _exit(ExitCode.OK)
    except KeyboardInterrupt as e:
        return _signal_exit(getattr(e, "signum", signal.SIGINT))
    except MemoryError:
        click.echo("kdump: out of memory", err=True)
        return _exit(ExitCode.ERROR)
    except OSError as e:
        if not _is_output_error(e):
            return _internal_error(e)
        # a full disk, a quota, a read-only or vanished output: the user's situation
        _stdout_to_devnull()
        click.echo(f"kdump: cannot write to standard output: {_os_reason(e)}", err=True)
        return _exit(ExitCode.ERROR)
    except Exception as e:  # a bug in kdump: say so in one line
        return _internal_error(e)
    return _exit(rv if isinstance(rv, int) else ExitCode.OK)


#: the signal that asked this command to stop, once one has (see :func:`_signal_exit`)
_stopped_by: int | None = None


def _interrupted(signum: int, frame: object) -> None:
    """Ctrl-C: Python's own KeyboardInterrupt, remembered (see :func:`_signal_exit`)."""
    global _stopped_by
    _stopped_by = signum
    raise KeyboardInterrupt


def _signal_exit(signum: int) -> Any:
    """The one line and code of a command stopped by a signal.

    :func:`main` reports any exception that ends a command after a signal as that
    signal: a signal's exception is raised wherever the interpreter happens to be, and CPython
    does not always let it through: raised inside an import (``from x import y``, a
    library importing a submodule lazily), ``import_from`` replaces it with a
    ``TypeError: expected a message argument`` (``PyErr_SetImportError`` given no
    message).  What the user did stands, whatever exception the unwinding ends with:
    staged outputs are removed by that same unwinding (kdump/output.py)."""
    with contextlib.suppress(OSError, ValueError):  # a hung-up terminal's stderr
        click.echo(f"kdump: {_SIGNAL_WORDS.get(signum, 'interrupted')}", err=True)
    return _exit(128 + signum)


#: the line for a signal that ends a command (SIGINT: Ctrl-C)
_SIGNAL_WORDS: dict[int, str] = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated (SIGTERM)",
                 signal.SIGHUP: "hung up (SIGHUP)"}


#: the process that installed :func:`_terminated` (a forked worker inherits the handler
#: until its initializer replaces it)
_handler_pid = 0


def _terminated(signum: int, frame: object) -> None:
    from ..errors import Interrupted

    if os.getpid() != _handler_pid:
        # a worker the pool is still starting, stopped by its parent: quietly, at once
        # (the parent cleans up what it was writing)
        os._exit(128 + signum)
    global _stopped_by
    _stopped_by = signum
    # once: a second SIGTERM or SIGHUP must not cut the clean-up this one starts short
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


def _catch_termination() -> None:
    """SIGTERM and SIGHUP raise :class:`~kdump.errors.Interrupted` (a KeyboardInterrupt)
    where the command is, as Ctrl-C does: the same clean-up runs (staged outputs
    removed, workers stopped) and :func:`main` says it in one line, exit 143 / 129."""
    global _handler_pid
    _handler_pid = os.getpid()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            if signal.getsignal(sig) in (signal.SIG_DFL, None, _terminated_while_starting):
                signal.signal(sig, _terminated)


def _internal_error(e: Exception) -> Any:
    if os.environ.get("KDUMP_DEBUG"):
        raise e
    from ..fs import scrub  # a backend's exception may quote a signed URL or a header

    click.echo(
        f"kdump: internal error: {e.__class__.__name__}: {scrub(str(e))} "
        "(set KDUMP_DEBUG=1 for a traceback)",
        err=True,
    )
    return _exit(ExitCode.ERROR)


#: what writing kdump's output can fail with that is not kdump's bug (an OSError of one
#: of these with no file name comes from a write to standard output: input errors are
#: InputErrors naming their file before they leave the core)
_OUTPUT_ERRNOS = frozenset(getattr(errno, n) for n in (
    "ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO", "EBADF", "ENXIO", "ESHUTDOWN", "ECONNRESET",
    "EAGAIN") if hasattr(errno, n))


def _is_output_error(e: OSError) -> bool:
    return e.errno in _OUTPUT_ERRNOS and e.filename is None


def _os_reason(e: OSError) -> str:
    return e.strerror or os.strerror(e.errno or 0)


def _stdout_to_devnull() -> None:
    """Point stdout's descriptor at /dev/null: what is still buffered goes nowhere,
    instead of failing again (and noisily) when the interpreter exits."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _exit(code: int) -> Any:
    """Exit with ``code`` once stdout is flushed.  A flush that fails is the output's
    trouble: a closed pipe is quiet (as Unix tools are), anything else (a full disk)
    is said in one line and exits 2: the output is not complete."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
    except OSError as e:
        _stdout_to_devnull()
        click.echo(f"kdump: cannot write to standard output: {_os_reason(e)}", err=True)
        code = ExitCode.ERROR
    except ValueError:  # stdout closed
        pass
    # the command is done and its output flushed: a Ctrl-C now would only cut the
    # clean-up short (temporary files, worker pools) and end the process by the signal
    # with no word, so what is left runs to its end and the command's code stands
    if _OWN_PROCESS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            for sig in (signal.SIGTERM, signal.SIGHUP):
                if signal.getsignal(sig) is _terminated:
                    signal.signal(sig, signal.SIG_IGN)
    sys.exit(int(code))
