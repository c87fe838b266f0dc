(function () {
  "use strict";
  var node = document.getElementById("chart-specs");
  if (!node || typeof window.vegaEmbed !== "function") { return; }
  var specs = JSON.parse(node.textContent);
  var figures = document.querySelectorAll("figure.chart");
  Array.prototype.forEach.call(figures, function (figure) {
    var spec = specs[Number(figure.getAttribute("data-chart"))];
    var target = figure.querySelector(".live");
    window.vegaEmbed(target, spec, { actions: false, renderer: "svg" })
      .then(function () { figure.classList.add("rendered"); })
      .catch(function (error) { console.error("chart " + figure.id + ": " + error); });
  });
})();
