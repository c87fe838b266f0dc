"""``python -m ereval`` runs the command-line interface."""

from ereval.cli import main

if __name__ == "__main__":
    main()
