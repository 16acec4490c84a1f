# args: {"samples": [2.5, 3.1, 4.7, 3.1, 5.0, 2.2, 3.9, 3.1, 6.4], "other": [1, 2, 3, 4, 5, 6, 7, 8, 9]}
import statistics as st


def statistics_summary(samples: list[float], other: list[float]) -> dict:
    """Descriptive statistics and a regression."""
    slope, intercept = st.linear_regression(other, samples)
    return {
        "mean": round(st.mean(samples), 4),
        "fmean": round(st.fmean(samples), 4),
        "median": [st.median(samples), st.median_low([1, 2, 3, 4]), st.median_high([1, 2, 3, 4]), st.median_grouped([1, 2, 2, 3])],
        "mode": [st.mode(samples), st.multimode("aabbc")],
        "spread": [round(st.pstdev(samples), 4), round(st.stdev(samples), 4), round(st.variance(samples), 4)],
        "quantiles": [round(q, 3) for q in st.quantiles(samples, n=4)],
        "geometric": round(st.geometric_mean([1, 10, 100]), 6),
        "harmonic": round(st.harmonic_mean([40, 60]), 6),
        "correlation": round(st.correlation(other, samples), 4),
        "regression": [round(slope, 4), round(intercept, 4)],
        "normal": round(st.NormalDist(100, 15).cdf(130), 4),
        "zscore": round(st.NormalDist.from_samples(samples).zscore(5.0), 4),
    }
