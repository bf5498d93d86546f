"""`python -m confnav` runs the CLI."""

from confnav.cli import main

main()
