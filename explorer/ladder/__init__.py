"""Does a toy's verdict hold at scale? A ladder per scale claim (issue 37): the same paired comparison trained at
sizes spanning 16x or more in parameters, each rung with the lab's reviewed recipe, read the same way, with a
verdict declared in advance (`explorer.ladder.verdict`)."""
