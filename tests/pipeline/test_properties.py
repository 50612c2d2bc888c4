"""Properties of the whole pipeline under hostile posts: replies or problems, never a crash.

CI runs a bounded number of examples; ``--hypothesis-profile long`` runs 100,000.
"""

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.posts import posts_from_thread
from referee.pipeline.campaign import Campaign
from referee.pipeline.failures import FailureLog
from referee.pipeline.flow import Referee
from referee.pipeline.tag import INTERNAL_PROBLEM
from referee.render.renderer import Renderer
from referee.resolve.dispatch import verbs_for
from referee.system import load_system
from referee.testing import make_campaign, sheet
from referee.testing.hostile import bodies, saved_thread

STEPPED_VERBS = tuple(verbs_for(load_system("stepped")))  # the campaign's verb words

SHEETS = [
    sheet("Kara Venn", owner="kara"),
    sheet("Trooper 1", kind="npc"),
    sheet("Trooper 2", kind="npc"),
]
AUTHORS = st.sampled_from(["kara", "gm", "stranger"])
# A memory-backed folder where there is one: every example flushes and fsyncs its store.
SCRATCH = Path("/dev/shm") if Path("/dev/shm").is_dir() else None


def _renderer(campaign: Campaign) -> Renderer:
    """One renderer for every example: compiling the templates is most of a fresh one's cost."""
    config = campaign.config
    key = (config.templates_dir, config.name, campaign.published_commitment, config.system)
    if key not in _RENDERERS:
        _RENDERERS[key] = Renderer(*key[:3], system=campaign.system)
    return _RENDERERS[key]


_RENDERERS: dict[tuple, Renderer] = {}


# Each example writes, flushes and reopens a campaign on disk: no fixed deadline fits a busy
# machine, so none is set (the number of examples still bounds the run).
@settings(deadline=None)
@given(posts=st.lists(st.tuples(AUTHORS, bodies(STEPPED_VERBS)), min_size=1, max_size=4))
def test_any_thread_is_refereed_flushed_and_reopened(posts):
    """Any posts, read through the saved-thread adapter, get replies or problem verdicts
    (never an exception, a failed post or an internal error) and the store reopens
    holding exactly what was replied."""
    thread = posts_from_thread(saved_thread(posts))
    with tempfile.TemporaryDirectory(dir=SCRATCH) as folder:
        campaign = make_campaign(Path(folder), SHEETS)
        renderer = _renderer(campaign)
        with campaign:
            referee = Referee(campaign, renderer)
            outcomes = [referee.referee(post) for post in thread.posts]
            campaign.store.flush()
            failed = [(o.post.fullname, o.text) for o in outcomes if o.failed]
            internal = [o.post.fullname for o in outcomes if INTERNAL_PROBLEM in o.text]
            assert ([], []) == (failed, internal)
        with Campaign(campaign.config, campaign.secret) as reopened:
            replayed = [Referee(reopened, renderer).referee(post) for post in thread.posts]
            assert 0 == len(FailureLog(reopened.store))
    assert [o.text for o in outcomes] == [o.text for o in replayed]
