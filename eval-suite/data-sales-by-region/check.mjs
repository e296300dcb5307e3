// node check.mjs <workspace> <answer-file>: exit 0 when every expected output file matches solution/files/.
import { checkOutputFiles } from "../_checks/output-files.mjs";

checkOutputFiles(process.argv[2], ["out/regions.csv"]);
