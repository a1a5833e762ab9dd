"""The speed line from benchmark records (benchmarks/speed_line.py), on hand-made records of known speed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "speed_line.py"
_SPEC = importlib.util.spec_from_file_location("speed_line_benchmark", _PATH)
speed_line = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = speed_line
_SPEC.loader.exec_module(speed_line)

D = 1000  # training documents a pass


def hdp_records(seconds: dict[str, list[float]], epochs: int = 2, engine: str = "engine HDP") -> list[dict]:
    """compare_hdp.py's records: ``seconds[system][seed]`` is the seconds the whole run took, spread evenly."""
    records = []
    for name, per_seed in seconds.items():
        for seed, total in enumerate(per_seed):
            for epoch in range(1, epochs + 1):
                records.append({"seed": seed, "epoch": epoch, "docs_seen": D * epoch,
                                "system": engine if name == "engine" else name, "kind": "hdp", "k": 150,
                                "heldout_loglik": -8.0, "seconds": total * epoch / epochs,
                                "docs_per_second": D * epoch / (total * epoch / epochs)})
    return records


def lda_records(seconds: dict[tuple, dict[str, list[float]]]) -> list[dict]:
    """compare_lda.py's records: ``seconds[(kappa, tau, k)][system]`` lists each epoch's seconds (seed 0)."""
    records = []
    for (kappa, tau, k), systems in seconds.items():
        for name, per_epoch in systems.items():
            for epoch, took in enumerate(per_epoch, start=1):
                records.append({"k": k, "batch_size": 256, "kappa": kappa, "tau": tau, "seed": 0, "epoch": epoch,
                                "docs_seen": D * epoch, "system": name, "heldout_loglik": -8.0, "seconds": took,
                                "seconds_all_repeats": [took], "docs_per_second": D / took})
    return records


def write(tmp_path: Path, name: str, records: list[dict], corpus: str = "/data/corpora/ap") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"meta": {"corpus": corpus}, "records": records}))
    return path


def test_hdp_speed_is_documents_over_seconds_summed_over_seeds():
    records = hdp_records({"engine": [2.0, 3.0], "gensim HDP": [8.0, 12.0]}, epochs=4)
    found = speed_line.speeds(records)
    # brute force: two seeds of 4 passes of D documents each, in 5 and 20 seconds in all
    assert found[()]["engine HDP"] == pytest.approx(2 * 4 * D / 5.0)
    assert found[()]["gensim HDP"] == pytest.approx(2 * 4 * D / 20.0)


def test_lda_speed_sums_each_epochs_documents_and_seconds_per_setting():
    records = lda_records({(0.9, 1.0, 100): {"engine[ones,gamma]": [1.0, 3.0], "sklearn": [4.0, 4.0]},
                           (0.7, 64.0, 50): {"engine[ones,gamma]": [2.0, 2.0], "sklearn": [3.0, 5.0]}})
    found = speed_line.speeds(records)
    assert found[(0.9, 1.0, 100)]["engine[ones,gamma]"] == pytest.approx(2 * D / 4.0)
    assert found[(0.9, 1.0, 100)]["sklearn"] == pytest.approx(2 * D / 8.0)
    assert found[(0.7, 64.0, 50)]["sklearn"] == pytest.approx(2 * D / 8.0)


def test_rounds_pair_in_order_and_the_verdict_follows_the_lowest(tmp_path):
    # baseline: the engine 4x and 5x the peer; candidate: 4x (1.00 of round 1) and 4.5x (0.90 of round 2)
    baseline = [write(tmp_path, "b1.json", hdp_records({"engine": [1.0], "gensim HDP": [4.0]})),
                write(tmp_path, "b2.json", hdp_records({"engine": [1.0], "gensim HDP": [5.0]}))]
    candidate = [write(tmp_path, "c1.json", hdp_records({"engine": [2.0], "gensim HDP": [8.0]})),
                 write(tmp_path, "c2.json", hdp_records({"engine": [2.0], "gensim HDP": [9.0]}))]
    report, met = speed_line.compare(baseline, candidate)
    assert not met
    assert "| all | 1 | 4.00x | 4.00x | 1.00x |" in report
    assert "| all | 2 | 5.00x | 4.50x | 0.90x |" in report
    assert "every pairing of rounds: 0.80x to 1.12x" in report  # 4.0 / 5.0 and 4.5 / 4.0
    assert report.endswith("FAIL")
    # exactly at the target passes; a lower target lets round 2 pass too
    assert speed_line.compare(baseline[:1], candidate[:1])[1]
    assert speed_line.compare(baseline, candidate, target=0.9)[1]


def test_named_systems_and_peers(tmp_path):
    baseline = write(tmp_path, "b.json", hdp_records({"engine": [1.0], "gensim HDP": [3.0]}))
    both = hdp_records({"engine": [1.0], "gensim HDP": [3.0]}) + hdp_records({"engine": [2.0]},
                                                                              engine="engine HDP [births 0]")
    candidate = write(tmp_path, "c.json", both)
    with pytest.raises(speed_line.RecordError, match="2 engine systems"):
        speed_line.compare([baseline], [candidate])
    report, met = speed_line.compare([baseline], [candidate], system="engine HDP [births 0]",
                                     baseline_system="engine HDP")
    assert "| all | 1 | 3.00x | 1.50x | 0.50x |" in report and not met
    with pytest.raises(speed_line.RecordError, match="no peer 'tomotopy'"):
        speed_line.compare([baseline], [baseline], peer="tomotopy")
    lda = write(tmp_path, "l.json", lda_records({(0.9, 1.0, 100): {"engine": [1.0], "sklearn": [2.0]}}))
    report, met = speed_line.compare([lda], [lda])
    assert "| kappa 0.9, tau 1, K = 100 | 1 | 2.00x | 2.00x | 1.00x |" in report and met


@pytest.mark.parametrize(("change", "message"), [
    ({"corpus": "/data/corpora/foldoc"}, "compare runs of the same benchmark only"),
    ({"epochs": 3}, "3 epochs"),
    ({"seeds": 2}, "seeds \\[0, 1\\]"),
])
def test_files_that_measure_different_things_are_refused(tmp_path, change, message):
    baseline = write(tmp_path, "b.json", hdp_records({"engine": [1.0], "gensim HDP": [3.0]}))
    records = hdp_records({"engine": [1.0] * change.get("seeds", 1), "gensim HDP": [3.0] * change.get("seeds", 1)},
                          epochs=change.get("epochs", 2))
    other = write(tmp_path, "c.json", records, corpus=change.get("corpus", "/elsewhere/ap"))
    with pytest.raises(speed_line.RecordError, match=message):
        speed_line.compare([baseline], [other])


def test_unreadable_or_unpaired_files_get_a_message_not_a_traceback(tmp_path, capsys):
    good = write(tmp_path, "b.json", hdp_records({"engine": [1.0], "gensim HDP": [3.0]}))
    broken = tmp_path / "broken.json"
    broken.write_text('{"meta": {}, "records": [')
    empty = write(tmp_path, "empty.json", [])
    for files, message in [(["--baseline", str(good), "--candidate", str(broken)], "not a readable JSON record"),
                           (["--baseline", str(good), "--candidate", str(empty)], "holds no records"),
                           (["--baseline", str(good), "--candidate", str(tmp_path / "absent.json")],
                            "not a readable JSON record"),
                           (["--baseline", str(good), str(good), "--candidate", str(good)],
                            "as many --candidate files as --baseline files")]:
        with pytest.raises(SystemExit, match=message):
            speed_line.main(files)
    assert speed_line.main(["--baseline", str(good), "--candidate", str(good)]) == 0
    assert capsys.readouterr().out.strip().endswith("PASS")
