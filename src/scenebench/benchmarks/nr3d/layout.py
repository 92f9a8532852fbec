"""ReferIt3D's results table as the papers print it: overall, easy, hard, view-dependent, view-independent."""

from scenebench.report.layouts import Block, Layout

LAYOUT = Layout(
    group="difficulty",
    metrics=("accuracy",),
    blocks=(Block(None, "Overall"), Block("easy", "Easy"), Block("hard", "Hard")),
)
