"""Bad input: each mistake is one line naming what is wrong — exit code 2 and no
traceback or panic on the command line, :class:`prefetchlab.PrefetchlabError`
through the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

import prefetchlab
from prefetchlab import PrefetchlabError

from .helpers import SMALL_TOML, assert_one_line_error, run_cli

#: The head of a DiskSim drive description, cut off in the middle of a block:
#: written here, in DiskSim's syntax (not copied from any DiskSim file).
TRUNCATED_DISKSPECS = """\
disksim_disk TRUNCATED {
  Model = disksim_disk,
  Scheduler = disksim_ioqueue {
    Scheduling policy = 1,
    Cylinder mapping strategy = 1,
  },
  Max queue length = 8,
  Block count = 1000000,
  Number of data surfaces = 4,
  Per-request overhead time = 0.5,
  Time scale for overheads = 1.0,
  Bulk sector transfer time = 0.0,
  Hold bus entire request = 0,
  Allow almost read hits = 1,
  Enable caching in buffer = 1,
  Buffer continuous read =
"""


@dataclass
class Case:
    """A configuration (TOML text) and overrides that must be refused, and words the message must hold."""

    toml: str
    sets: list[str] = field(default_factory=list)
    expected: tuple[str, ...] = ()


CASES: dict[str, Case] = {
    "nonexistent preset": Case('[disk]\nmodel = "no-such-drive"\n', expected=("disk.model", "no-such-drive")),
    "strip of 0": Case('[array]\nlayout = "raid0"\ndisks = 2\nstrip = 0\n', expected=("array.strip",)),
    "more disks than the layout allows": Case(
        '[array]\nlayout = "single"\ndisks = 2\n', expected=("array.disks",)
    ),
    "unknown key": Case("[array]\nstripes = 4\n", expected=("stripes",)),
    "unknown section": Case("[arrays]\ndisks = 4\n", expected=("arrays",)),
    "malformed --set": Case(SMALL_TOML, sets=["workload.streams"], expected=("workload.streams",)),
    "--set with an empty key part": Case(SMALL_TOML, sets=["workload..streams=2"]),
    "--set of a bad value": Case(SMALL_TOML, sets=["readahead.max=lots"], expected=("readahead.max",)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_cli_refuses_in_one_line(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    path = tmp_path / "bad.toml"
    path.write_text(case.toml)
    args: list[str | Path] = ["run", path]
    for s in case.sets:
        args += ["--set", s]
    assert_one_line_error(run_cli(*args), *case.expected)


@pytest.mark.parametrize("name", list(CASES))
def test_api_raises_prefetchlab_error(name: str) -> None:
    case = CASES[name]
    with pytest.raises(PrefetchlabError) as info:
        prefetchlab.simulate(case.toml, case.sets)
    message = str(info.value)
    assert "\n" not in message and "internal error" not in message, message
    for word in case.expected:
        assert word in message, (word, message)


def _truncated_spec(tmp_path: Path) -> Path:
    path = tmp_path / "truncated.diskspecs"
    path.write_text(TRUNCATED_DISKSPECS)
    return path


def test_truncated_diskspecs_as_the_drive_model(tmp_path: Path) -> None:
    spec = _truncated_spec(tmp_path)
    config = tmp_path / "uses-spec.toml"
    config.write_text(SMALL_TOML + f'\n[disk]\nmodel = "{spec}"\n')
    assert_one_line_error(run_cli("run", config), spec.name)
    with pytest.raises(PrefetchlabError, match="truncated.diskspecs"):
        prefetchlab.simulate(config)


def test_truncated_diskspecs_in_validate_disk(tmp_path: Path) -> None:
    spec = _truncated_spec(tmp_path)
    trace = tmp_path / "one.trace"
    trace.write_text("R Miss 1000 8 5.00000 0.00000\n")
    assert_one_line_error(run_cli("validate-disk", spec, trace), spec.name)
    with pytest.raises(PrefetchlabError, match="truncated.diskspecs"):
        prefetchlab.validate_disk(spec, trace)


def test_missing_config_file(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-config.toml"
    assert_one_line_error(run_cli("run", missing), "no-such-config.toml")
    with pytest.raises(PrefetchlabError, match="no-such-config.toml"):
        prefetchlab.simulate(missing)


def test_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[array]\ndisks = 2\nstrip = \n")
    assert_one_line_error(run_cli("run", path), "broken.toml:3")


def test_missing_validation_files(tmp_path: Path) -> None:
    assert_one_line_error(
        run_cli("validate-disk", tmp_path / "nope.parv", tmp_path / "nope.trace"), "nope.parv"
    )


def test_malformed_override(tmp_path: Path) -> None:
    spec = _truncated_spec(tmp_path)
    no_value = run_cli("validate-disk", spec, spec, "--override", "Fast write level")
    assert_one_line_error(no_value, "NAME=VALUE")
    assert_one_line_error(
        run_cli("validate-disk", spec, spec, "--override", "Fast write level=fast"), "not a number"
    )


def test_unknown_subcommand_and_option(small_config: Path) -> None:
    assert_one_line_error(run_cli("simulate", small_config), "simulate")
    assert_one_line_error(run_cli("run", small_config, "--fast"), "--fast")
    assert_one_line_error(run_cli(), "COMMAND")
