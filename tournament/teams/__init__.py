"""Team events (团体赛): teams of N boards plus reserves, paired by round robin, double round robin or Swiss;
every board an ordinary game. ``scoring`` is the arithmetic (no database), ``services`` the transitions,
``format`` the stage format (registered by the app's ``ready``). See docs/teams.md."""
