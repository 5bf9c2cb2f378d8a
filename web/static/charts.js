// Draws the page charts with uPlot (web/static/vendor/uplot-*/) from the JSON block that
// web/templates/ads/_chart.html puts in each <figure data-chart>. Dates are UTC days, as
// the reports count them. Points are always drawn, so a single day still shows.
(function () {
  "use strict";

  var DAY = 86400;
  var IMPRESSIONS = "#1a73e8";
  var CLICKS = "#d93025";
  var MONEY = ["#188038", "#9334e6", "#e37400", "#12b5cb"];
  var locale = window.i18n.locale;
  var numbers = new Intl.NumberFormat(locale);
  var days = new Intl.DateTimeFormat(locale, { month: "numeric", day: "numeric", timeZone: "UTC" });
  var fullDays = new Intl.DateTimeFormat(locale, { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  var months = new Intl.DateTimeFormat(locale, { year: "numeric", month: "long", timeZone: "UTC" });
  // The chart's words, from the page (web/templates/ads/_chart.html, chart_text).
  var t = window.i18n.t;

  function seconds(text) {
    // "2026-11-23" or "2026-11" (first day of the month), at 00:00 UTC.
    var parts = text.split("-").map(Number);
    return Date.UTC(parts[0], parts[1] - 1, parts[2] || 1) / 1000;
  }

  function dayLabel(ts) {
    return days.format(new Date(ts * 1000));
  }

  function fullDay(ts) {
    return fullDays.format(new Date(ts * 1000));
  }

  function monthLabel(ts) {
    return months.format(new Date(ts * 1000));
  }

  function count(u, value) {
    return value == null ? "-" : numbers.format(value);
  }

  function fromZero(u, min, max) {
    return [0, max > 0 ? Math.ceil(max * 1.1) : 1];
  }

  // The x range from the data; one point still gets room either side.
  function span(xs, step) {
    var first = xs[0];
    var last = xs[xs.length - 1];
    return first === last ? [first - step, last + step] : [first, last];
  }

  function series(label, scale, color, value) {
    return {
      label: label,
      scale: scale,
      stroke: color,
      width: 2,
      value: value || count,
      points: { show: true, size: 6, fill: color, stroke: color },
    };
  }

  function countAxis(label, scale, side, color, grid) {
    return {
      scale: scale,
      side: side,
      label: label,
      stroke: color,
      size: 60,
      grid: { show: grid },
      values: function (u, splits) {
        return splits.map(function (v) {
          return numbers.format(v);
        });
      },
    };
  }

  function timeAxis(step, label) {
    var steps = [1, 2, 7, 14, 28, 56, 112].map(function (n) {
      return n * step;
    });
    return {
      space: 56,
      incrs: steps,
      values: function (u, splits) {
        return splits.map(label);
      },
    };
  }

  // Splits and labels on UTC days, whatever the reader's time zone.
  function utc(ts) {
    return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC");
  }

  function width(el) {
    return Math.max(260, el.clientWidth || el.parentNode.clientWidth);
  }

  function dailyPlot(data, el) {
    var xs = data.days.map(seconds);
    return new uPlot(
      {
        width: width(el),
        height: 260,
        tzDate: utc,
        scales: {
          x: { time: true, range: span(xs, DAY) },
          imp: { range: fromZero },
          clk: { range: fromZero },
        },
        series: [
          {
            label: t("chart_date"),
            value: function (u, ts) {
              return ts == null ? "-" : fullDay(ts);
            },
          },
          series(t("chart_impressions"), "imp", IMPRESSIONS),
          series(t("chart_clicks"), "clk", CLICKS),
        ],
        axes: [
          timeAxis(DAY, dayLabel),
          countAxis(t("chart_impressions"), "imp", 3, IMPRESSIONS, true),
          countAxis(t("chart_clicks"), "clk", 1, CLICKS, false),
        ],
      },
      [xs, data.impressions, data.clicks],
      el
    );
  }

  // Months on an evenly spaced axis (their numbers 0, 1, 2, ...), labelled by name.
  function revenuePlot(data, one, index, el) {
    var xs = data.months.map(function (m, i) {
      return i;
    });
    function month(i) {
      var text = data.months[Math.round(i)];
      return text ? monthLabel(seconds(text)) : "";
    }
    var color = MONEY[index % MONEY.length];
    var currency = one.currency.toUpperCase();
    return new uPlot(
      {
        width: width(el),
        height: 220,
        scales: { x: { time: false, range: span(xs, 0.5) }, amount: { range: fromZero } },
        series: [
          {
            label: t("chart_month"),
            value: function (u, i) {
              return i == null ? "-" : month(i);
            },
          },
          series(t("chart_amount", { currency: currency }), "amount", color),
        ],
        axes: [
          {
            space: 72,
            incrs: [1, 2, 3, 6, 12],
            values: function (u, splits) {
              return splits.map(month);
            },
          },
          countAxis(t("chart_amount", { currency: currency }), "amount", 3, color, true),
        ],
      },
      [xs, one.amounts],
      el
    );
  }

  function draw(figure) {
    var block = figure.querySelector("script[data-chart-data]");
    var places = figure.querySelectorAll("[data-chart-plot]");
    if (!block || !places.length || typeof uPlot === "undefined") {
      return;
    }
    var data = JSON.parse(block.textContent);
    var plots = [];
    if (data.kind === "daily") {
      plots.push(dailyPlot(data, places[0]));
    } else if (data.kind === "monthly") {
      data.series.forEach(function (one, i) {
        plots.push(revenuePlot(data, one, i, places[i]));
      });
    }
    window.addEventListener("resize", function () {
      plots.forEach(function (plot, i) {
        plot.setSize({ width: width(places[i]), height: plot.height });
      });
    });
    figure.setAttribute("data-chart-drawn", String(plots.length));
  }

  function start() {
    document.querySelectorAll("figure[data-chart]").forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
