// kdump report: sorting and filtering for tables that read fine without this script.
(function () {
  "use strict";
  function cellValue(td) {
    var v = td.getAttribute("data-v");
    if (v !== null) { var n = Number(v); return isNaN(n) ? v : n; }
    return td.textContent.trim().toLowerCase();
  }
  function sortBy(table, col, th) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    Array.prototype.forEach.call(table.tBodies, function (body) {
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = cellValue(a.cells[col]), y = cellValue(b.cells[col]);
        if (x === y) { return 0; }
        var r = (typeof x === "number" && typeof y === "number") ? x - y : (String(x) < String(y) ? -1 : 1);
        return asc ? r : -r;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, col) {
      th.tabIndex = 0;
      th.title = "Sort";
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortBy(table, col, th); } });
    });
  });
  document.querySelectorAll("input.filter").forEach(function (input) {
    var scope = document.getElementById(input.getAttribute("data-for"));
    if (!scope) { return; }
    input.hidden = false;
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      scope.querySelectorAll("tbody tr").forEach(function (tr) {
        tr.hidden = q !== "" && tr.textContent.toLowerCase().indexOf(q) < 0;
      });
      if (q !== "") { scope.querySelectorAll("details").forEach(function (d) { d.open = true; }); }
    });
  });
  // key columns after the first (data-keys="2": the partition beside the group) stay in
  // view when the table scrolls in its box: each sticks where the ones before it end
  function holdKeys() {
    document.querySelectorAll("table[data-keys]").forEach(function (table) {
      var k = Number(table.getAttribute("data-keys")), head = table.rows[0], lefts = [0];
      if (!head) { return; }
      for (var c = 1; c < k && c < head.cells.length; c++) {
        lefts.push(lefts[c - 1] + head.cells[c - 1].getBoundingClientRect().width);
      }
      Array.prototype.forEach.call(table.rows, function (tr) {
        for (var c = 1; c < lefts.length && c < tr.cells.length; c++) {
          tr.cells[c].classList.add("key");
          tr.cells[c].style.left = lefts[c] + "px";
        }
      });
    });
  }
  holdKeys();
  window.addEventListener("resize", holdKeys);
  document.querySelectorAll("details").forEach(function (d) { d.addEventListener("toggle", holdKeys); });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();
