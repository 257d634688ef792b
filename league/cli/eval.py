"""`league eval ...`: the offline evaluation tracks (docs/evals.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.cli._common import parse_day
from league.clock import SystemClock
from league.errors import ConfigError
from league.evals.build_questions import build, data_dir
from league.evals.config import find_seat, load_config
from league.evals.context.report import ARMS, MODES
from league.evals.errors import RecountFailed
from league.evals.points import points_report, print_lines, write_report
from league.evals.policy import Policy, PolicySandbox, retrieval
from league.evals.questions import read_question_file, shipped_question_file
from league.evals.run import RunOptions, run_questions
from league.evals.seats import policy_seat
from league.extras import extra
from league.jsonvalue import items
from league.runner import remote_runner
from league.workers.broker import parse_target
from league.workers.topology import check_queue_name
from league_agents.registry import make_sandbox

if TYPE_CHECKING:
    from league.evals.results import Results
    from league.runner import SeatRunner

eval_app = typer.Typer(name="eval", help="Offline evaluations: event-question sets and point forecasts (MASE).",
                       no_args_is_help=True)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _print_scores(results: Results) -> None:
    scores, retrieval = results["scores"], results["retrieval"]
    typer.echo(f"retrieval: {retrieval['label']} (policy {retrieval['policy']}, {retrieval['enforced']})")
    typer.echo(f"{'group':<30} {'trials':>6} {'pass@1':>7} {'exam':>6} {'any@N':>6} {'all@N':>6} {'skill':>6} "
               f"{'parse✗':>6} {'silent':>6}")
    rows = [("overall", scores["overall"])]
    rows += [(f"{grp.removeprefix('by_')}={name}", fig)
             for grp, groups in (("by_question_type", scores["by_question_type"]),
                                 ("by_choice_type", scores["by_choice_type"]))
             for name, fig in groups.items()]
    for name, f in rows:
        typer.echo(f"{name:<30} {f['trials']:>6} {_pct(f['pass_at_1']):>7} {_num(f['exam'], 2):>6} "
                   f"{_pct(f['pass_any']):>6} {_pct(f['pass_all']):>6} {_num(f['tversky_skill'], 2):>6} "
                   f"{f['parse_failures']:>6} {f['no_reply']:>6}")
    agree, cost, probs = scores["agreement"], scores["cost"], scores["probabilities"]
    typer.echo(f"agreement across trials: Cohen's κ (mean of pairs) {_num(agree['cohen_mean'])}, "
               f"Fleiss' κ {_num(agree['fleiss'])} over {agree['questions']} questions")
    if cost["trials_with_cost"]:
        typer.echo(f"cost: {_num(cost['total'], 4)} USD over {cost['trials_with_cost']} replies; "
                   f"per correct answer {_num(cost['per_correct'], 4)}")
    if probs["trials"]:
        typer.echo(f"probabilities: {probs['trials']} replies, Brier {_num(probs['brier'])}, "
                   f"log loss {_num(probs['log_loss'])}")


def _remote_runner(queue: str, broker: str, password_file: Path | None, ca_file: str) -> SeatRunner | None:
    """The remote seat runner for a seat on a lab's queue (None: the seat runs here)."""
    if not queue:
        return None
    if not broker:
        raise ConfigError(f"the seat runs on lab queue {queue!r} but no broker is given",
                          fix="pass --broker and --password-file (LEAGUE_BROKER_URL, LEAGUE_BROKER_PASSWORD_FILE)")
    check_queue_name(queue)
    return remote_runner(parse_target(broker, password_file=password_file, ca_file=ca_file), SystemClock())


@eval_app.command("questions")
def questions(
    file: Annotated[Path | None, typer.Argument(help="SQLite question file (default: the shipped set)")] = None,
    seat: Annotated[str, typer.Option("--seat", envvar="LEAGUE_EVAL_SEAT", help="seat name")] = "standin-sharp",
    trials: Annotated[int | None, typer.Option("--trials", envvar="LEAGUE_EVAL_TRIALS", min=1, max=20)] = None,
    cutoff: Annotated[str | None, typer.Option("--cutoff", envvar="LEAGUE_EVAL_CUTOFF",
                                               help="the seat's knowledge cutoff YYYY-MM-DD (overrides)")] = None,
    policy: Annotated[str | None, typer.Option("--policy", envvar="LEAGUE_EVAL_POLICY",
                                               help="network policy: none, api or web")] = None,
    limit: Annotated[int | None, typer.Option("--limit", envvar="LEAGUE_EVAL_LIMIT", min=1)] = None,
    concurrency: Annotated[int | None, typer.Option("--concurrency", envvar="LEAGUE_EVAL_CONCURRENCY", min=1)] = None,
    table: Annotated[str, typer.Option("--table", envvar="LEAGUE_EVAL_TABLE",
                                       help="question table (test_cases in the authors' repository)")] = (
        "forecast_eval_set_example"),
    probabilities: Annotated[bool | None, typer.Option("--probabilities/--no-probabilities",
                                                       envvar="LEAGUE_EVAL_PROBABILITIES",
                                                       help="also ask for a probability per option")] = None,
    out: Annotated[Path, typer.Option("--out", envvar="LEAGUE_EVAL_OUT", help="evaluation folder")] = Path("eval-out"),
    eval_config: Annotated[Path | None, typer.Option("--eval-config", envvar="LEAGUE_EVAL_CONFIG")] = None,
    roster: Annotated[Path | None, typer.Option("--roster", envvar="LEAGUE_ROSTER",
                                                help="a league roster.toml for seats beyond the config")] = None,
    stamp_config: Annotated[Path | None, typer.Option(
        "--stamp-config", envvar="LEAGUE_EVAL_STAMP_CONFIG",
        help="a league's config folder: stamp the eval book with its [stamps] authorities")] = None,
    worker: Annotated[str | None, typer.Option(
        "--worker", envvar="LEAGUE_EVAL_WORKER",
        help="run the trials on this lab queue's workers (default: the seat's own `worker`, else here)")] = None,
    broker: Annotated[str, typer.Option("--broker", envvar="LEAGUE_BROKER_URL",
                                        help="the league's broker login amqp(s)://USER@HOST:PORT/")] = "",
    password_file: Annotated[Path | None, typer.Option("--password-file", envvar="LEAGUE_BROKER_PASSWORD_FILE",
                                                       help="file holding the broker user's password")] = None,
    ca_file: Annotated[str, typer.Option("--ca-file", envvar="LEAGUE_BROKER_CA_FILE",
                                         help="CA certificate the broker's TLS certificate is checked against")] = "",
) -> None:
    """Run one seat on a question file, N trials per question, sealed in OUT/eval-book.jsonl; on a lab's
    workers when the seat (or --worker) names a queue."""
    config = load_config(eval_config)
    chosen = find_seat(config, seat, roster)
    try:
        opts = RunOptions(trials=trials or config.trials, policy=Policy(policy or config.policy),
                          concurrency=concurrency or config.concurrency, limit=limit,
                          cutoff=parse_day(cutoff, option="--cutoff") if cutoff else None,
                          probabilities=config.probabilities if probabilities is None else probabilities)
    except ValueError as exc:
        raise ConfigError(f"bad option: {exc}", fix="--policy is none, api or web; --cutoff is YYYY-MM-DD") from exc
    qset = read_question_file(file or shipped_question_file(), table)
    if qset.recipe.source == "league":
        typer.echo("note: the file has no dataset_metadata; prompts use the league's own recipe")
    if worker is not None:
        chosen = chosen.model_copy(update={"seat": chosen.seat.model_copy(update={"worker": worker})})
    runner = _remote_runner(chosen.seat.worker, broker, password_file, ca_file)
    try:
        result = run_questions(qset, chosen, out, SystemClock(), opts, say=typer.echo, runner=runner)
    finally:
        if runner is not None:
            runner.close()
    if stamp_config is not None:
        with extra("daemon"):
            from league.evals.stamping import stamp_eval_book
        stamped = stamp_eval_book(stamp_config, out, SystemClock(), result.run_id)
        typer.echo(f"eval book stamped: trust level {stamped.trust_level}" if stamped else
                   "eval book NOT stamped (see the log); the run itself is complete")
    _print_scores(result.results)
    typer.echo(f"excluded: {len(items(result.results['excluded']))} (reasons in results.json)")
    typer.echo(f"open data: {result.public} (run {result.run_id})")


@eval_app.command("recount")
def recount(folder: Annotated[Path, typer.Argument(
        help="an evaluation's open-data folder (OUT/public, or OUT/public/context/RUN of a contextual run)")]) -> None:
    """Run the folder's stand-alone recount (tools/recount_eval.py, or tools/recount_context.py for a contextual
    run) with this Python, isolated (-I)."""
    script = folder / "tools" / "recount_eval.py"
    if (folder / "tools" / "recount_context.py").is_file():
        script = folder / "tools" / "recount_context.py"
    if not script.is_file():
        raise RecountFailed(f"{script} is missing", fix="pass the public folder written by `league eval questions` "
                            "or a run folder OUT/public/context/RUN written by `league eval context`")
    proc = subprocess.run([sys.executable, "-I", str(script), "--data", str(folder)], capture_output=True, text=True,
                          check=False)
    typer.echo(proc.stdout.rstrip())
    problems: list[str] = []
    if script.name == "recount_context.py":
        with extra("stats"):
            from league.evals.context.run import revalidate_effects
        checked, problems = revalidate_effects(folder)
        for line in problems:
            typer.echo(line)
        typer.echo(f"effects re-validated with league.evals.context.validate (needs numpy): {checked} window(s), "
                   f"{len(problems)} record(s) that do not hold")
    if proc.returncode != 0 or problems:
        raise RecountFailed(f"the recount of {folder} failed (exit {proc.returncode}, "
                            f"{len(problems)} effects record(s) that do not hold)",
                            fix="each DIFFERS line names the run, the line or the figure")


@eval_app.command("points")
def points(
    data: Annotated[Path, typer.Option("--data", envvar="LEAGUE_DATA",
                                       help="a league data folder or published folder holding council-book.jsonl")],
    out: Annotated[Path | None, typer.Option("--out", envvar="LEAGUE_EVAL_POINTS_OUT",
                                             help="where points.json/points.csv go (default: print only)")] = None,
    season: Annotated[int, typer.Option("--season", envvar="LEAGUE_EVAL_SEASON", min=1,
                                        help="season length m in sessions (1 = no change)")] = 1,
    min_history: Annotated[int, typer.Option("--min-history", envvar="LEAGUE_EVAL_MIN_HISTORY", min=1,
                                             help="fewest in-sample differences that make a scale")] = 5,
) -> None:
    """Score the council's sealed target levels with MASE against the seasonal naive forecast."""
    report = points_report(data, season=season, min_history=min_history)
    for line in print_lines(report):
        typer.echo(line)
    if out is not None:
        write_report(report, out)
        typer.echo(f"written: {out / 'points.json'}, {out / 'points.csv'}")


def _names(values: list[str] | None, default: tuple[str, ...], what: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """A repeatable option's values, each also split on commas (``--arms history,macro``); checked when
    ``allowed`` is given."""
    names = [n.strip() for v in values or [] for n in v.split(",") if n.strip()] or list(default)
    bad = [n for n in names if allowed and n not in allowed]
    if bad:
        raise ConfigError(f"unknown {what} {', '.join(bad)}", fix=f"{what} are: {', '.join(allowed)}")
    return list(dict.fromkeys(names))


@eval_app.command("context")
def context(
    series: Annotated[Path | None, typer.Option("--series", envvar="LEAGUE_EVAL_CTX_SERIES",
                                                help="a CSV or Parquet file: id,timestamp,value "
                                                     "(default: the shipped demo series)")] = None,
    data: Annotated[Path | None, typer.Option("--data", envvar="LEAGUE_EVAL_CTX_DATA",
                                              help="instead: a league data folder (its recorded history, "
                                                   "then the council book's closes after it)")] = None,
    freq: Annotated[str | None, typer.Option("--freq", envvar="LEAGUE_EVAL_CTX_FREQ",
                                             help="the series' frequency (default: inferred): H, D, 15min")] = None,
    seat: Annotated[list[str] | None, typer.Option("--seat", envvar="LEAGUE_EVAL_CTX_SEATS",
                                                   help="a seat or baseline (_naive, _ets, _theta); repeatable "
                                                        "(default: the three baselines)")] = None,
    arms: Annotated[list[str] | None, typer.Option("--arms", envvar="LEAGUE_EVAL_CTX_ARMS",
                                                   help="history, macro, micro, both (default: all)")] = None,
    modes: Annotated[list[str] | None, typer.Option("--modes", envvar="LEAGUE_EVAL_CTX_MODES",
                                                    help="direct, editing (default: both)")] = None,
    horizon: Annotated[list[int] | None, typer.Option("--horizon", envvar="LEAGUE_EVAL_CTX_HORIZONS",
                                                      help="horizon(s) in steps, 30..900 (default: 30)")] = None,
    buckets: Annotated[list[str] | None, typer.Option("--buckets", envvar="LEAGUE_EVAL_CTX_BUCKETS",
                                                      help="short, medium, long (default: all)")] = None,
    max_windows: Annotated[int, typer.Option("--max-windows", envvar="LEAGUE_EVAL_CTX_MAX_WINDOWS", min=1,
                                             help="candidate windows per series, horizon and bucket")] = 2,
    out: Annotated[Path, typer.Option("--out", envvar="LEAGUE_EVAL_OUT", help="evaluation folder")] = Path("eval-out"),
    concurrency: Annotated[int, typer.Option("--concurrency", envvar="LEAGUE_EVAL_CONCURRENCY", min=1)] = 4,
    policy: Annotated[str | None, typer.Option("--policy", envvar="LEAGUE_EVAL_POLICY",
                                               help="network policy of the asked seats: none, api or web")] = None,
    eval_config: Annotated[Path | None, typer.Option("--eval-config", envvar="LEAGUE_EVAL_CONFIG")] = None,
    roster: Annotated[Path | None, typer.Option("--roster", envvar="LEAGUE_ROSTER",
                                                help="a league roster.toml for seats beyond the config")] = None,
    stamp_config: Annotated[Path | None, typer.Option(
        "--stamp-config", envvar="LEAGUE_EVAL_STAMP_CONFIG",
        help="a league's config folder: stamp the eval book with its [stamps] authorities")] = None,
) -> None:
    """The contextual point-forecast track: hard windows with their effects, sealed, then the baselines and the
    seats' paths per arm and mode, scored by MASE relative to the seasonal naive (docs/evals.md, section C)."""
    with extra("stats"):
        from league.evals.context.baselines import is_baseline
        from league.evals.context.run import AskingSeat, CtxOptions, run_context
        from league.evals.context.sources import read_league_series, read_series_file, shipped_series
        from league.evals.context.windowset import BUCKET_NAMES, build_window_set
    if series is not None and data is not None:
        raise ConfigError("both --series and --data given", fix="name one source of series")
    arm_names = _names(arms, ARMS, "arms", ARMS)
    mode_names = _names(modes, MODES, "modes", MODES)
    bucket_names = _names(buckets, BUCKET_NAMES, "buckets", BUCKET_NAMES)
    seat_names = _names(seat, ("_naive", "_ets", "_theta"), "seats")
    config = load_config(eval_config)
    try:
        run_policy = Policy(policy or config.policy)
    except ValueError as exc:
        raise ConfigError(f"bad option: {exc}", fix="--policy is none, api or web") from exc
    chosen = [find_seat(config, name, roster) for name in seat_names if not is_baseline(name)]
    source = read_league_series(data) if data is not None else read_series_file(series or shipped_series(), freq)
    sets = build_window_set(source, horizon or [30], bucket_names, max_windows=max_windows)
    sandbox = PolicySandbox(make_sandbox(), Policy.NONE) if chosen else None
    asked = [AskingSeat(c.name, policy_seat(c.seat, run_policy), c.seat.adapter, c.seat.model,
                        min(concurrency, c.max_concurrency)) for c in chosen]
    result = run_context(sets, out, SystemClock(), CtxOptions(tuple(arm_names), tuple(mode_names), concurrency,
                                                               run_policy.value, retrieval(run_policy).label),
                         baselines=[n for n in seat_names if is_baseline(n)], seats=asked,
                         sandbox=sandbox, say=typer.echo)
    if stamp_config is not None:
        with extra("daemon"):
            from league.evals.stamping import stamp_eval_book
        stamped = stamp_eval_book(stamp_config, out, SystemClock(), result.run_id)
        typer.echo(f"eval book stamped: trust level {stamped.trust_level}" if stamped else
                   "eval book NOT stamped (see the log); the run itself is complete")
    for line in summary_lines(result.rows):
        typer.echo(line)
    typer.echo(f"open data: {result.public} (run {result.run_id}); recount: league eval recount {result.public}")


def summary_lines(rows: list[tuple[str, str, str, str, str]]) -> list[str]:
    """The summary table: per seat and arm × mode, the relative MASE and the compliance shares."""
    table: dict[tuple[str, str], dict[str, str]] = {}
    for seat, scope, key, figure, value in rows:
        if scope == "arm":
            table.setdefault((seat, key), {})[figure] = value
    out = ["relative MASE vs the seasonal naive (geometric mean over arm × mode × bucket; lower is better)",
           f"{'seat':<16} {'arm/mode':<16} {'rel.MASE':>9} {'windows':>8} {'exact%':>7} {'range%':>7} "
           f"{'effects%':>9}"]

    def pct(value: str | None) -> str:
        return "n/a" if not value else f"{100 * float(value):.0f}%"

    for (seat, key), f in sorted(table.items()):
        out.append(f"{seat:<16} {key:<16} {f.get('relative_mase') or 'n/a':>9} {f.get('windows', ''):>8} "
                   f"{pct(f.get('exact_share')):>7} {pct(f.get('within_range_share')):>7} "
                   f"{pct(f.get('effects_met_share')):>9}")
    return out


@eval_app.command("build-questions")
def build_questions(
    source: Annotated[Path | None, typer.Option("--source", help="TOML source (default: the shipped one)")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="SQLite file to write (default: the shipped one)")] = None,
) -> None:
    """Build a question file in the data set's SQLite layout from its readable TOML source."""
    path = build(source or data_dir() / "league-questions.toml", out or data_dir() / "league-questions.db")
    typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app)
