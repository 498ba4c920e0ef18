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


def test_validate_disk_overrides_of_the_wrong_shape_are_named(tmp_path: Path) -> None:
    spec = _truncated_spec(tmp_path)  # the overrides are refused before the drive is read
    trace = tmp_path / "one.trace"
    trace.write_text("R Miss 1000 8 5.00000 0.00000\n")
    for bad in ([("Enable caching in buffer",)], [("Enable caching in buffer", "on")], 5, [(1, 2)]):
        with pytest.raises(PrefetchlabError, match="overrides: expected .DiskSim parameter name"):
            prefetchlab.validate_disk(spec, trace, bad)  # type: ignore[arg-type]


def test_drive_errors_name_the_key_and_line_they_came_from(tmp_path: Path) -> None:
    """A misspelt DiskSim override in a configuration names `disk.overrides` and its line (or
    the --set); a drive file that cannot be read names `disk.model` and its line; with
    validate-disk, which has no configuration, the --override."""
    config = tmp_path / "ov.toml"
    config.write_text(
        SMALL_TOML + '\n[disk]\nmodel = "cheetah-15k5"\noverrides = { "Fast write levl" = 0 }\n'
    )
    line = config.read_text().splitlines().index('overrides = { "Fast write levl" = 0 }') + 1
    assert_one_line_error(
        run_cli("run", config), f"ov.toml:{line}: config key `disk.overrides`", "Fast write level"
    )
    small = tmp_path / "small.toml"
    small.write_text(SMALL_TOML)
    assert_one_line_error(
        run_cli("run", small, "--set", "disk.overrides.Fast write levl=0"),
        "--set disk.overrides.Fast write levl=0",
    )
    missing = tmp_path / "m.toml"
    missing.write_text(SMALL_TOML + '\n[disk]\nmodel = "nosuch.parv"\n')
    line = missing.read_text().splitlines().index('model = "nosuch.parv"') + 1
    assert_one_line_error(run_cli("run", missing), f"m.toml:{line}: config key `disk.model`", "nosuch.parv")
    trace = tmp_path / "one.trace"
    trace.write_text("R Miss 1000 8 5.00000 0.00000\n")
    proc = run_cli("validate-disk", _truncated_spec(tmp_path), trace, "--override", "Fast write levl=0")
    assert_one_line_error(proc, "--override `Fast write levl=0`", "Fast write level")
    assert "config" not in proc.stderr


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


# Experiment files: a value of the wrong type is one line naming the file, the line and what
# was expected (never a traceback), before any run.

#: A small valid experiment: two runs.
EXPERIMENT = """\
[experiment]
name = "typed"

[workload]
streams = [1, 2]
record = "64KiB"
file_size = "256KiB"
"""

FIGURE = """
[[figure]]
name = "bw"
x = "workload.streams"
y = "bandwidth_mb_s"
"""

CLAIM = """
[[claim]]
text = "two streams read faster"
check = "bandwidth_mb_s[workload.streams=2] > bandwidth_mb_s[workload.streams=1]"
"""


@dataclass
class BadExperiment:
    """An experiment file, the line (its text) the error must point at, and words it must hold."""

    text: str
    line: str
    expected: tuple[str, ...]


def _top(key_value: str) -> str:
    """A top-level ``key = value`` before the tables."""
    return key_value + "\n" + EXPERIMENT


BAD_EXPERIMENTS: dict[str, BadExperiment] = {
    "figure = [1]": BadExperiment(
        _top("figure = [1]"),
        "figure = [1]",
        ("`figure` must be an array of tables ([[figure]])", "an integer (1)"),
    ),
    "figure = an array of strings": BadExperiment(
        _top('figure = ["bw"]'), 'figure = ["bw"]', ("array of tables", 'its item 1 is a string ("bw")')
    ),
    "figure = 3": BadExperiment(_top("figure = 3"), "figure = 3", ("array of tables", "not an integer (3)")),
    'claim = "x"': BadExperiment(
        _top('claim = "x"'), 'claim = "x"', ("`claim` must be an array of tables", "string")
    ),
    "claim = [1]": BadExperiment(_top("claim = [1]"), "claim = [1]", ("`claim`", "its item 1 is an integer")),
    "[[figure]] x = 3": BadExperiment(
        EXPERIMENT + FIGURE.replace('x = "workload.streams"', "x = 3"),
        "[[figure]]",
        ("figure 1", "`x` must be a string", "not an integer (3)"),
    ),
    "[[figure]] without y": BadExperiment(
        EXPERIMENT + FIGURE.replace('y = "bandwidth_mb_s"\n', ""),
        "[[figure]]",
        ("figure 1", "`y` is missing"),
    ),
    "[[figure]] units = { x = 3 }": BadExperiment(
        EXPERIMENT + FIGURE + "units = { x = 3 }\n",
        "[[figure]]",
        ("`units` must be", "`units.x` is an integer"),
    ),
    "[[figure]] series = 3": BadExperiment(
        EXPERIMENT + FIGURE + "series = 3\n",
        "[[figure]]",
        ("`series` must be a configuration key", "integer"),
    ),
    "[[figure]] logy = 1": BadExperiment(
        EXPERIMENT + FIGURE + "logy = 1\n", "[[figure]]", ("`logy` must be true or false", "integer")
    ),
    "[[claim]] where = 3": BadExperiment(
        EXPERIMENT + CLAIM + "where = 3\n", "[[claim]]", ("claim 1", "`where` must be a table", "an integer")
    ),
    "[[claim]] where holding a list": BadExperiment(
        EXPERIMENT + CLAIM + 'where = { "workload.record" = ["64KiB"] }\n',
        "[[claim]]",
        ("claim 1", "`workload.record`", "one number, string or boolean, not an array"),
    ),
    "[[claim]] figure = 1": BadExperiment(
        EXPERIMENT + FIGURE + CLAIM + "figure = 1\n",
        "[[claim]]",
        ("claim 1", "`figure` must be a figure's name"),
    ),
    "[[claim]] paper = [1]": BadExperiment(
        EXPERIMENT + CLAIM + "paper = [1]\n", "[[claim]]", ("`paper` must be a number or a string", "array")
    ),
    "[[claim]] check = 1": BadExperiment(
        EXPERIMENT + CLAIM.replace('check = "', 'check = 1 # "'),
        "[[claim]]",
        ("`check` must be a string", "integer"),
    ),
    "[[claim]] expected without a source": BadExperiment(
        EXPERIMENT + CLAIM + 'expected = "> 1×"\n', "[[claim]]", ("claim 1", "`expected` needs a `source`")
    ),
    "[[claim]] paper and expected": BadExperiment(
        EXPERIMENT + CLAIM + 'paper = "2×"\nexpected = "> 1×"\nsource = "us"\n',
        "[[claim]]",
        ("give `paper` (a published figure) or `expected`", "not both"),
    ),
    "[[claim]] a source alone": BadExperiment(
        EXPERIMENT + CLAIM + 'source = "us"\n', "[[claim]]", ("`source` names where `paper` or `expected`",)
    ),
    "[[claim]] source = 1": BadExperiment(
        EXPERIMENT + CLAIM + "expected = 2\nsource = 1\n",
        "[[claim]]",
        ("`source` must be a non-empty string",),
    ),
    "[experiment] title = 3": BadExperiment(
        EXPERIMENT.replace('name = "typed"', 'name = "typed"\ntitle = 3'),
        "title = 3",
        ("`title` must be a string",),
    ),
    "[sweep] only = [1]": BadExperiment(
        EXPERIMENT + "\n[sweep]\nonly = [1]\n",
        "only = [1]",
        ("`sweep.only` must be an array of tables", "integer"),
    ),
    "an axis of tables": BadExperiment(
        EXPERIMENT + "\n[array]\ndisks = [{ n = 2 }]\n",
        "disks = [{ n = 2 }]",
        ("axis `array.disks`", "not a table"),
    ),
}


@pytest.mark.parametrize("name", list(BAD_EXPERIMENTS))
def test_experiment_file_of_the_wrong_type(name: str, tmp_path: Path) -> None:
    case = BAD_EXPERIMENTS[name]
    path = tmp_path / "bad.toml"
    path.write_text(case.text)
    number = case.text.splitlines().index(case.line) + 1
    assert_one_line_error(run_cli("sweep", path), f"bad.toml:{number}: ", *case.expected)
    assert not (tmp_path / "results.duckdb").exists()  # refused before any run


def test_the_experiment_of_the_bad_cases_is_good(tmp_path: Path) -> None:
    """The cases above differ from a valid file only by what they name."""
    from prefetchlab.experiment import load_experiment

    path = tmp_path / "good.toml"
    path.write_text(EXPERIMENT + FIGURE + CLAIM + 'where = { "workload.record" = "64KiB" }\n')
    exp = load_experiment(path)
    assert len(exp.runs) == 2 and len(exp.figures) == 1 and len(exp.claims) == 1


def test_a_directory_or_a_non_drive_file_is_named_as_such(tmp_path: Path) -> None:
    assert_one_line_error(run_cli("trace", "stats", tmp_path), "a directory, not a trace file")
    trace = tmp_path / "t.trace"
    trace.write_text("R Miss 1000 8 5.00000 0.00000\n")
    proc = run_cli("validate-disk", tmp_path, trace)
    assert_one_line_error(proc, "Is a directory")
    assert "os error" not in proc.stderr
    model = tmp_path / "drive.model"
    model.write_text("# a DiskSim model file\n")
    assert_one_line_error(run_cli("drive", model), "not a drive", ".diskspecs that sources it")
    proc = run_cli("drive", "no-such-drive")
    assert_one_line_error(proc, "drive model: unknown drive model `no-such-drive`")
    assert "config key" not in proc.stderr


def test_an_output_directory_that_is_a_file_is_refused_before_any_work(tmp_path: Path) -> None:
    afile = tmp_path / "out.txt"
    afile.write_text("keep me\n")
    for args in (
        ("plot", "foundation-demo", "--out", afile),
        ("reproduce", "foundation-demo", "--out", afile),
        ("results", "export", "--parquet", afile),
    ):
        assert_one_line_error(run_cli(*args), f"{afile}: a file, not a directory")
    assert afile.read_text() == "keep me\n"
