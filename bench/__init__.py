"""Performance scripts (`make bench`); they print medians and ratios and assert nothing."""
