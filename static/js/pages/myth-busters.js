// Entry script of a mode page: the modules it imports do nothing on import.
import {bindLessonNavigation} from "../lesson-nav.js";
import {start} from "../modes/myth-busters.js";
import {addReportLinks} from "../report-problem.js";

bindLessonNavigation();
start();
addReportLinks();
