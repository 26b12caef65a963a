"""``python -m graphc COMMAND``: ``show PATH`` and ``run PATH ...`` for saved graphs
(``graphc/saved_model/cli.py``; ``python -m graphc run --help`` for the options)."""

import argparse
import sys

from graphc.saved_model import cli


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graphc",
                                     description="graphc command line: saved graphs")
    commands = parser.add_subparsers(dest="name", metavar="COMMAND", required=True)
    cli.add_commands(commands)
    args = parser.parse_args(argv)  # bad usage: argparse prints it and exits with 2
    return cli.run_command(args)


if __name__ == "__main__":
    sys.exit(main())
