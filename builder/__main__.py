"""Allow `python -m builder`."""

from builder.cli import run

if __name__ == "__main__":
    run()
