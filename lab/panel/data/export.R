# Exports the panel's small real data sets from Debian's R data packages
# into CSV files: numeric features, the target named y last, a header line,
# no quotes, no row names. Run once (the files are committed; panel gen
# reads them and never needs R):
#
#   apt-get install -y r-base-core r-cran-mass r-cran-modeldata r-cran-earth r-cran-caret r-cran-aer
#   Rscript lab/panel/data/export.R lab/panel/data
#   gzip -n -9 -f lab/panel/data/cox2.csv     (the one file over 200 KB)
#
# lab/panel/data/README.md says what each set is and what was changed.
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "."

put <- function(name, x, y) {
  x <- as.data.frame(x)
  stopifnot(all(sapply(x, is.numeric)), is.numeric(y), nrow(x) == length(y))
  d <- data.frame(x, y = y, check.names = FALSE)
  stopifnot(!anyNA(d), all(is.finite(as.matrix(d))), !("y" %in% names(x)))
  path <- file.path(out, paste0(name, ".csv"))
  write.table(d, path, sep = ",", row.names = FALSE, quote = FALSE)
  cat(sprintf("%-10s %5d x %3d  %s\n", name, nrow(d), ncol(d) - 1, path))
}
from <- function(item, pkg) {
  e <- new.env()
  data(list = item, package = pkg, envir = e)
  e
}

# MASS::Boston: median home value (medv, $1000s) of 506 Boston census tracts.
b <- from("Boston", "MASS")$Boston
put("boston", b[setdiff(names(b), "medv")], b$medv)

# modeldata::concrete: compressive strength (MPa) of 1030 concrete mixtures.
cc <- as.data.frame(from("concrete", "modeldata")$concrete)
put("concrete", cc[setdiff(names(cc), "compressive_strength")], cc$compressive_strength)

# modeldata::biomass: higher heating value (HHV, MJ/kg) of 536 biomass
# samples from their elemental composition; the sample name and the
# authors' training/testing label are dropped.
bm <- from("biomass", "modeldata")$biomass
put("biomass", bm[c("carbon", "hydrogen", "oxygen", "nitrogen", "sulfur")], bm$HHV)

# earth::ozone1: daily maximum ozone (O3, ppm) in the Los Angeles basin,
# 1976, 330 days with no missing value (Breiman and Friedman's version).
oz <- from("ozone1", "earth")$ozone1
put("ozone", oz[setdiff(names(oz), "O3")], oz$O3)

# caret::cox2: COX-2 inhibition of 462 molecules from 255 descriptors;
# y = log10(IC50) (IC50 spans 0.001 to 100; 51 molecules sit at 100).
cx <- from("cox2", "caret")
put("cox2", cx$cox2Descr, log10(cx$cox2IC50))

# AER::CPS1985: log hourly wage of 534 workers (Current Population Survey,
# May 1985); the seven factors become 0/1 indicators (treatment coding, the
# first level as the baseline).
cp <- from("CPS1985", "AER")$CPS1985
mm <- model.matrix(~ education + experience + age + ethnicity + region + gender +
                     occupation + sector + union + married, cp)[, -1]
colnames(mm) <- gsub("[^A-Za-z0-9_]", "_", colnames(mm))
put("cps1985", mm, log(cp$wage))

# modeldata::car_prices: Kelly Blue Book resale price ($) of 804 2005 GM cars
# (already numeric: mileage, cylinders, doors, options and 0/1 make and body).
cr <- as.data.frame(from("car_prices", "modeldata")$car_prices)
put("carprices", cr[setdiff(names(cr), "Price")], cr$Price)

# modeldata::meats: fat content (%) of 215 meat samples from their 100-channel
# NIR absorbance spectra (the Tecator data); water and protein, the other
# two responses, are dropped (fat + water + protein is nearly constant).
mt <- from("meats", "modeldata")$meats
put("meats", mt[sprintf("x_%03d", 1:100)], mt$fat)
