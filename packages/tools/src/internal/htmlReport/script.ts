/**
 * The report's only script: the filter box. Without it the page is whole (the summary, the list of cases, every case
 * expandable); with it, typing narrows the list and the cases to those whose id, description, scenario or status
 * holds the words. It reads the page, never its text as markup.
 */
export const script = `
(function () {
  var box = document.getElementById("filter");
  var toolbar = document.getElementById("toolbar");
  var shown = document.getElementById("shown");
  var items = Array.prototype.slice.call(document.querySelectorAll("[data-search]"));
  var cases = items.filter(function (item) { return item.tagName === "DETAILS"; });
  toolbar.hidden = false;
  var apply = function () {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var count = 0;
    items.forEach(function (item) {
      var text = item.getAttribute("data-search");
      var keep = words.every(function (word) { return text.indexOf(word) !== -1; });
      item.classList.toggle("hidden-by-filter", !keep);
      if (keep && item.tagName === "DETAILS") count++;
    });
    shown.textContent = count + " of " + cases.length + " cases shown";
  };
  box.addEventListener("input", apply);
  apply();
})();
`
