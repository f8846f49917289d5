"""tirxc: TIRx kernel files (.tx) to CUDA (.cu) and a CuPy launcher."""

__version__ = "0.1.0"


def data_text(package: str, name: str) -> str:
    """A data file shipped in `transpiler.grammar` / `transpiler.templates`.

    Installed, those are packages of the wheel; in a source checkout used
    without installing (PYTHONPATH=.), they are the top-level folders.
    """
    from importlib import resources
    from pathlib import Path

    try:
        return resources.files(f"transpiler.{package}").joinpath(name).read_text(encoding="utf-8")
    except ModuleNotFoundError:
        return (Path(__file__).resolve().parent.parent / package / name).read_text(encoding="utf-8")
