"""Command line: ``python -m teachgrad.notebook install-kernel [--user|--sys-prefix|--prefix P]``.

Installs the "Python 3 (teachgrad)" Jupyter kernel (see :mod:`teachgrad.notebook.kernelspec`).
"""

from __future__ import annotations

import argparse
import sys

from .kernelspec import DISPLAY_NAME, KERNEL_NAME, install_kernel_spec


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one sub-command per job (only ``install-kernel`` so far)."""
    parser = argparse.ArgumentParser(prog="python -m teachgrad.notebook")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    install = commands.add_parser(
        "install-kernel",
        help=f'install the "{DISPLAY_NAME}" Jupyter kernel',
        description=(
            f'Install the "{DISPLAY_NAME}" Jupyter kernel: IPython with the teachgrad '
            "extension loaded (tensors display as tables). Without an option it is "
            "installed system-wide."
        ),
    )
    where = install.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user only")
    where.add_argument(
        "--sys-prefix", action="store_true", help=f"install into this environment ({sys.prefix})"
    )
    where.add_argument(
        "--prefix", metavar="PREFIX", help="install into PREFIX/share/jupyter/kernels"
    )
    install.add_argument(
        "--name", default=KERNEL_NAME, help=f"the kernel's name (default: {KERNEL_NAME})"
    )
    install.add_argument(
        "--display-name",
        default=DISPLAY_NAME,
        help=f'the name shown in Jupyter (default: "{DISPLAY_NAME}")',
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "install-kernel":
        try:
            path = install_kernel_spec(
                user=args.user,
                sys_prefix=args.sys_prefix,
                prefix=args.prefix,
                kernel_name=args.name,
                display_name=args.display_name,
            )
        except ImportError as error:
            print(
                f"error: {error}\nHint: pip install 'teachgrad[notebook]' installs Jupyter.",
                file=sys.stderr,
            )
            return 1
        except PermissionError as error:
            print(
                f"error: cannot install the kernel there: {error}\n"
                "Hint: use --user (just you) or --sys-prefix (this environment).",
                file=sys.stderr,
            )
            return 1
        print(f"Installed kernelspec {args.name} in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
