(function () {
  "use strict";
  var node = document.getElementById("chart-specs");
  if (!node || typeof window.vegaEmbed !== "function") { return; }
  var specs = JSON.parse(node.textContent);
  var figures = document.querySelectorAll("figure.chart");
  Array.prototype.forEach.call(figures, function (figure) {
    var views = specs[Number(figure.getAttribute("data-chart"))];
    var target = figure.querySelector(".live");
    target.classList.toggle("several", views.length > 1);
    var drawn = views.map(function (spec) {
      var panel = document.createElement("div");
      panel.className = "panel";
      target.appendChild(panel);
      return panel;
    }).map(function (panel, k) {
      var spec = views[k];
      // a title never wider than its panel
      if (spec.title && typeof spec.title === "object") {
        spec.title.limit = Math.max(120, panel.clientWidth - 10);
      }
      return window.vegaEmbed(panel, spec, { actions: false, renderer: "svg" });
    });
    Promise.all(drawn)
      .then(function () { figure.classList.add("rendered"); })
      .catch(function (error) { console.error("chart " + figure.id + ": " + error); });
  });
})();
